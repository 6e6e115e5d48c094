package online

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// registry is a loopback stand-in for Crossref, PubMed, arXiv and Open
// Library, answering for the real ids of the tests and no other.
func registry(t *testing.T) (*httptest.Server, *[]string) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.RequestURI())
		if ua := r.Header.Get("User-Agent"); ua != "vibe-test" {
			t.Errorf("User-Agent %q", ua)
		}
		q := r.URL.Query()
		switch {
		case r.URL.Path == "/crossref/works/10.1038/nbt.3117":
			fmt.Fprint(w, `{"status":"ok","message":{"title":["GUIDE-seq enables genome-wide profiling of off-target cleavage by CRISPR-Cas nucleases"]}}`)
		case r.URL.Path == "/crossref/works/10.1500/slow":
			time.Sleep(300 * time.Millisecond)
			fmt.Fprint(w, `{}`)
		case r.URL.Path == "/crossref/works/10.1501/broken":
			http.Error(w, "oops", http.StatusInternalServerError)
		case strings.HasPrefix(r.URL.Path, "/crossref/works/"):
			http.Error(w, "Resource not found.", http.StatusNotFound)
		case r.URL.Path == "/eutils/esummary.fcgi" && q.Get("db") == "pubmed" && q.Get("id") == "25513782":
			fmt.Fprint(w, `{"result":{"uids":["25513782"],"25513782":{"uid":"25513782","title":"GUIDE-seq enables genome-wide profiling of off-target cleavage by CRISPR-Cas nucleases."}}}`)
		case r.URL.Path == "/eutils/esummary.fcgi" && q.Get("db") == "pmc" && q.Get("id") == "4320685":
			fmt.Fprint(w, `{"result":{"uids":["4320685"],"4320685":{"uid":"4320685","title":"GUIDE-Seq enables genome-wide profiling"}}}`)
		case r.URL.Path == "/eutils/esummary.fcgi":
			id := q.Get("id")
			fmt.Fprintf(w, `{"result":{"uids":[%q],%q:{"uid":%q,"error":"cannot get document summary"}}}`, id, id, id)
		case r.URL.Path == "/arxiv/query" && q.Get("id_list") == "1706.03762":
			fmt.Fprint(w, `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/1706.03762v7</id><title>Attention Is All
  You Need</title></entry></feed>`)
		case r.URL.Path == "/arxiv/query":
			fmt.Fprint(w, `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#incorrect_id_format</id><title>Error</title></entry></feed>`)
		case r.URL.Path == "/openlibrary/isbn/9780262033848.json":
			fmt.Fprint(w, `{"title":"Introduction to Algorithms"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

func TestCheck(t *testing.T) {
	srv, _ := registry(t)
	env := map[string]string{EnvCrossref: srv.URL + "/crossref/", EnvPubMed: srv.URL + "/eutils", EnvArXiv: srv.URL + "/arxiv",
		EnvOpenLibrary: srv.URL + "/openlibrary"}
	c := New(func(k string) string { return env[k] }, 100*time.Millisecond, "vibe-test")
	at := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		id   string
		want record.CitationCheck
		err  string
	}{
		{"10.1038/nbt.3117", record.CitationCheck{Found: true, Source: "crossref", Title: "GUIDE-seq enables genome-wide profiling of off-target cleavage by CRISPR-Cas nucleases"}, ""},
		{"10.9999/fabricated.2021.001", record.CitationCheck{Source: "crossref"}, ""},
		{"PMID:25513782", record.CitationCheck{Found: true, Source: "pubmed", Title: "GUIDE-seq enables genome-wide profiling of off-target cleavage by CRISPR-Cas nucleases."}, ""},
		{"PMID:99999999", record.CitationCheck{Source: "pubmed"}, ""},
		{"PMC4320685", record.CitationCheck{Found: true, Source: "pmc", Title: "GUIDE-Seq enables genome-wide profiling"}, ""},
		{"arXiv:1706.03762", record.CitationCheck{Found: true, Source: "arxiv", Title: "Attention Is All You Need"}, ""},
		{"arXiv:2101.99999", record.CitationCheck{Source: "arxiv"}, ""},
		{"ISBN:9780262033848", record.CitationCheck{Found: true, Source: "openlibrary", Title: "Introduction to Algorithms"}, ""},
		{"ISBN:9780000000002", record.CitationCheck{Source: "openlibrary"}, ""},
		{"10.1501/broken", record.CitationCheck{}, "answered 500 Internal Server Error"},
		{"10.1500/slow", record.CitationCheck{}, strings.TrimPrefix(srv.URL, "http://") + " did not answer within 100ms"},
	}
	for _, tt := range tests {
		got, err := c.Check(context.Background(), tt.id, at)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.id, err, tt.err)
			}
			continue
		}
		tt.want.PaperID, tt.want.At = tt.id, at
		if err != nil || got != tt.want {
			t.Errorf("%s: %+v, %v\nwant %+v", tt.id, got, err, tt.want)
		}
	}
}

// TestCheckUnreachable: a registry that accepts connections and never
// answers costs one timeout, said in words, and is not asked again in the
// run; one whose port is closed says so.
func TestCheckUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- conn // held open, never answered
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for len(accepted) > 0 {
			(<-accepted).Close()
		}
	})
	host := ln.Addr().String()
	env := map[string]string{EnvCrossref: "http://" + host, EnvPubMed: "http://" + host}
	c := New(func(k string) string { return env[k] }, 100*time.Millisecond, "vibe-test")
	at := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	var got []string
	for _, id := range []string{"10.1038/nbt.3117", "10.1038/nature14539", "PMID:25513782"} {
		_, err := c.Check(context.Background(), id, at)
		got = append(got, fmt.Sprint(err))
	}
	want := []string{
		host + " did not answer within 100ms",
		host + " did not answer within 100ms on an earlier id, so it was not asked again",
		host + " did not answer within 100ms on an earlier id, so it was not asked again",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(accepted); n != 1 {
		t.Errorf("the silent registry was connected to %d times, want 1", n)
	}

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := closed.Addr().String()
	closed.Close()
	c = New(func(k string) string { return "http://" + addr }, time.Second, "vibe-test")
	if _, err := c.Check(context.Background(), "arXiv:1706.03762", at); err == nil || err.Error() != addr+" cannot be reached: connect: connection refused" {
		t.Errorf("closed port: %v", err)
	}
}

func TestNewDefaults(t *testing.T) {
	c := New(func(string) string { return "" }, 0, "")
	if c.Crossref != DefaultCrossref || c.PubMed != DefaultPubMed || c.ArXiv != DefaultArXiv || c.OpenLibrary != DefaultOpenLibrary {
		t.Errorf("defaults %+v", c)
	}
}

func TestTitleMatch(t *testing.T) {
	title := "GUIDE-seq enables genome-wide profiling of off-target cleavage by CRISPR-Cas nucleases"
	tests := []struct {
		citing    []string
		match, ok bool
	}{
		{[]string{"Tsai et al. GUIDE-seq enables genome-wide profiling of off-target cleavage. doi:10.1038/nbt.3117"}, true, true},
		{[]string{"Attention is all you need, a transformer for translation, doi:10.1038/nbt.3117"}, false, true},
		{[]string{"- doi:10.1038/nbt.3117"}, false, false},
		{[]string{"doi:10.1038/nbt.3117, PMID 25513782, https://pubmed.ncbi.nlm.nih.gov/25513782/"}, false, false},
		{[]string{"- doi:10.1038/nbt.3117", "GUIDE-seq enables genome-wide profiling of off-target cleavage by CRISPR-Cas nucleases"}, true, true},
	}
	for _, tt := range tests {
		if m, ok := TitleMatch(title, tt.citing...); m != tt.match || ok != tt.ok {
			t.Errorf("TitleMatch(%q) = %v %v, want %v %v", tt.citing, m, ok, tt.match, tt.ok)
		}
	}
}
