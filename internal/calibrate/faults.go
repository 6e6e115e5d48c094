package calibrate

import (
	"io/fs"
	"strings"
	"sync"

	"github.com/vibe-science/vibe/skill"
)

// taxonomyFile is the fault taxonomy the seeded-fault ids come from.
const taxonomyFile = "vibe/assets/fault-taxonomy.md"

var (
	categoriesOnce sync.Once
	categories     map[string]string
)

// faultCategories reads the category of each fault family (SFI-01 →
// "confounded claim") from the taxonomy's tables, so the hint names
// categories exactly as the skill does and follows the file when people
// edit it.
func faultCategories() map[string]string {
	categoriesOnce.Do(func() {
		categories = map[string]string{}
		raw, err := fs.ReadFile(skill.FS, taxonomyFile)
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(raw), "\n") {
			cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
			if len(cells) < 2 {
				continue
			}
			id, cat := strings.TrimSpace(cells[0]), strings.TrimSpace(cells[1])
			if fam := FaultFamily(id); fam != id && cat != "" {
				if _, seen := categories[fam]; !seen {
					categories[fam] = cat
				}
			}
		}
	})
	return categories
}

// FaultFamily is the family of a fault id: SFI-01a → SFI-01, META-02b →
// META-02, DOM-03a → DOM-03. An id of another shape is its own family.
func FaultFamily(id string) string {
	dash := strings.LastIndexByte(id, '-')
	if dash < 0 || len(id) < dash+4 {
		return id
	}
	num, letter := id[dash+1:len(id)-1], id[len(id)-1]
	if len(num) != 2 || num[0] < '0' || num[0] > '9' || num[1] < '0' || num[1] > '9' || letter < 'a' || letter > 'z' {
		return id
	}
	return id[:len(id)-1]
}

// FaultCategory names a fault's category for people: "confounded claim"
// for SFI-01a, "domain-specific" for DOM ids, the id itself when unknown.
func FaultCategory(id string) string {
	fam := FaultFamily(id)
	if c, ok := faultCategories()[fam]; ok {
		return c
	}
	if strings.HasPrefix(fam, "DOM-") {
		return "domain-specific"
	}
	return fam
}
