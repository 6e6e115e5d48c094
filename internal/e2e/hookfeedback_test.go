package e2e

import "testing"

func TestHookFeedback(t *testing.T) {
	const fb = "Stop hook feedback:\nfinish the review first"
	for _, c := range []struct {
		name, text, want string
		ok               bool
	}{
		{"2.1.332 wording", "<system-reminder>\n" + HookOutputPreamble + "\n" + fb + "\n</system-reminder>", fb, true},
		{"2.1.330 wording: bare", fb, "", false},
		{"reminder without the preamble", "<system-reminder>\n" + fb + "\n</system-reminder>", "", false},
		{"two reminders", "<system-reminder>\n" + HookOutputPreamble + "\nx\n</system-reminder>\n<system-reminder>\n" + HookOutputPreamble + "\n" + fb + "\n</system-reminder>", "", false},
		{"text after the reminder", "<system-reminder>\n" + HookOutputPreamble + "\n" + fb + "\n</system-reminder>\nmore", "", false},
	} {
		got, ok := HookFeedback(c.text)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: HookFeedback = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
