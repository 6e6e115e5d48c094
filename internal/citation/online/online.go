package online

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/citation"
	"github.com/vibe-science/vibe/internal/store/record"
)

// The registries' public endpoints, and the variables that replace them.
const (
	DefaultCrossref    = "https://api.crossref.org"
	DefaultPubMed      = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
	DefaultArXiv       = "https://export.arxiv.org/api"
	DefaultOpenLibrary = "https://openlibrary.org"

	EnvCrossref    = "VIBE_CROSSREF_URL"
	EnvPubMed      = "VIBE_PUBMED_URL"
	EnvArXiv       = "VIBE_ARXIV_URL"
	EnvOpenLibrary = "VIBE_OPENLIBRARY_URL"
)

// DefaultTimeout bounds each request.
const DefaultTimeout = 10 * time.Second

// maxBody caps what is read of an answer.
const maxBody = 4 << 20

// Checker asks the registries, one run's questions (it remembers which
// hosts did not answer; not for concurrent use).
type Checker struct {
	Crossref, PubMed, ArXiv, OpenLibrary string
	Client                               *http.Client
	// Timeout bounds each request (DefaultTimeout when zero).
	Timeout   time.Duration
	UserAgent string

	// down are the hosts that did not answer in this Checker's run (a
	// timeout, a refused connection, a name that does not resolve): they
	// are not asked again, so a registry that is down costs one timeout,
	// not one per id.
	down map[string]error
}

// New is a Checker on the registries getenv names, else the public ones.
func New(getenv func(string) string, timeout time.Duration, userAgent string) *Checker {
	or := func(k, def string) string {
		if v := strings.TrimRight(getenv(k), "/"); v != "" {
			return v
		}
		return def
	}
	return &Checker{Crossref: or(EnvCrossref, DefaultCrossref), PubMed: or(EnvPubMed, DefaultPubMed),
		ArXiv: or(EnvArXiv, DefaultArXiv), OpenLibrary: or(EnvOpenLibrary, DefaultOpenLibrary),
		Client: &http.Client{}, Timeout: timeout, UserAgent: userAgent}
}

// errNotFound is a registry's answer that it has no such id.
var errNotFound = errors.New("not found")

// Check asks the registry of id's kind whether it knows id. A registry that
// says no is a CitationCheck with Found false; a registry that cannot be
// asked (a timeout, a server error) is an error, not an answer.
func (c *Checker) Check(ctx context.Context, id string, now time.Time) (record.CitationCheck, error) {
	out := record.CitationCheck{PaperID: id, At: now}
	var title string
	var err error
	switch citation.Kind(id) {
	case citation.KindDOI:
		out.Source = "crossref"
		title, err = c.crossref(ctx, id)
	case citation.KindPMID:
		out.Source = "pubmed"
		title, err = c.esummary(ctx, "pubmed", strings.TrimPrefix(id, "PMID:"))
	case citation.KindPMCID:
		out.Source = "pmc"
		title, err = c.esummary(ctx, "pmc", strings.TrimPrefix(id, "PMC"))
	case citation.KindArXiv:
		out.Source = "arxiv"
		title, err = c.arxiv(ctx, strings.TrimPrefix(id, "arXiv:"))
	case citation.KindISBN:
		out.Source = "openlibrary"
		title, err = c.openLibrary(ctx, strings.TrimPrefix(id, "ISBN:"))
	default:
		return out, fmt.Errorf("%s is no paper id", id)
	}
	switch {
	case errors.Is(err, errNotFound):
		return out, nil
	case err != nil:
		return out, err
	}
	out.Found, out.Title = true, strings.Join(strings.Fields(title), " ")
	return out, nil
}

// get fetches u; a 404 is errNotFound, any other status but 200 an error.
func (c *Checker) get(ctx context.Context, u string) ([]byte, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	host := hostOf(u)
	if err := c.down[host]; err != nil {
		return nil, fmt.Errorf("%w on an earlier id, so it was not asked again", err)
	}
	client := c.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, err // the caller gave up (an interrupt): not the registry's fault
		}
		err = unreachable(host, timeout, err)
		if c.down == nil {
			c.down = map[string]error{}
		}
		c.down[host] = err
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, errNotFound
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s answered %s", hostOf(u), resp.Status)
	}
	return body, nil
}

// unreachable says, in a researcher's words rather than Go's ("Get …:
// context deadline exceeded"), why host gave no answer.
func unreachable(host string, timeout time.Duration, err error) error {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err):
		return fmt.Errorf("%s did not answer within %s", host, timeout)
	case errors.As(err, &dns):
		return fmt.Errorf("%s cannot be reached: its name does not resolve (no network, or no DNS)", host)
	case errors.As(err, &op):
		return fmt.Errorf("%s cannot be reached: %v", host, op.Err)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%s cannot be reached: %v", host, err)
}

func hostOf(u string) string {
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		return p.Host
	}
	return u
}

func (c *Checker) crossref(ctx context.Context, doi string) (string, error) {
	segs := strings.Split(doi, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	body, err := c.get(ctx, c.Crossref+"/works/"+strings.Join(segs, "/"))
	if err != nil {
		return "", err
	}
	var r struct {
		Message struct {
			Title []string `json:"title"`
		} `json:"message"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return "", fmt.Errorf("crossref: %w", err)
	}
	return strings.Join(r.Message.Title, " "), nil
}

func (c *Checker) esummary(ctx context.Context, db, num string) (string, error) {
	body, err := c.get(ctx, c.PubMed+"/esummary.fcgi?db="+db+"&retmode=json&id="+url.QueryEscape(num))
	if err != nil {
		return "", err
	}
	var r struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return "", fmt.Errorf("%s: %w", db, err)
	}
	raw, ok := r.Result[num]
	if !ok {
		return "", errNotFound
	}
	var doc struct {
		Title string `json:"title"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return "", fmt.Errorf("%s: %w", db, err)
	}
	if doc.Error != "" {
		return "", errNotFound // "cannot get document summary"
	}
	return doc.Title, nil
}

func (c *Checker) arxiv(ctx context.Context, id string) (string, error) {
	body, err := c.get(ctx, c.ArXiv+"/query?id_list="+url.QueryEscape(id))
	if err != nil {
		return "", err
	}
	var feed struct {
		Entries []struct {
			ID    string `xml:"id"`
			Title string `xml:"title"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(body, &feed); err != nil {
		return "", fmt.Errorf("arxiv: %w", err)
	}
	for _, e := range feed.Entries {
		// An id arXiv does not know comes back as an entry titled Error.
		if strings.Contains(e.ID, "/api/errors") || strings.TrimSpace(e.Title) == "Error" {
			continue
		}
		if strings.Contains(e.ID, id) {
			return e.Title, nil
		}
	}
	return "", errNotFound
}

func (c *Checker) openLibrary(ctx context.Context, isbn string) (string, error) {
	body, err := c.get(ctx, c.OpenLibrary+"/isbn/"+url.PathEscape(isbn)+".json")
	if err != nil {
		return "", err
	}
	var r struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return "", fmt.Errorf("openlibrary: %w", err)
	}
	return r.Title, nil
}

// stopWords are left out when titles are compared.
var stopWords = map[string]bool{"with": true, "from": true, "that": true, "this": true, "into": true, "their": true,
	"using": true, "based": true, "over": true, "under": true, "between": true, "through": true, "about": true,
	"after": true, "before": true, "which": true, "where": true, "while": true, "study": true,
	// the words of an id and its URL
	"https": true, "http": true, "pmid": true, "pmcid": true, "arxiv": true, "isbn": true, "pubmed": true, "ncbi": true}

// words are the significant words of s: lower-cased, four letters or more,
// no stop words, no numbers (an id's digits are no title).
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		if len([]rune(w)) >= 4 && !stopWords[w] && strings.Trim(w, "0123456789") != "" {
			out = append(out, w)
		}
	}
	return out
}

// TitleMatch compares the registry's title with what the citation says:
// the text of the lines that cite the id (and any title the researcher
// gave). ok is false when that text names too little to compare (a bare
// id); match is true when most of the title's significant words are in it.
func TitleMatch(title string, citing ...string) (match, ok bool) {
	tw := words(title)
	if len(tw) == 0 {
		return false, false
	}
	have := map[string]bool{}
	for _, s := range citing {
		for _, w := range words(s) {
			have[w] = true
		}
	}
	if len(have) < 3 {
		return false, false
	}
	n := 0
	for _, w := range tw {
		if have[w] {
			n++
		}
	}
	return float64(n) >= 0.6*float64(len(tw)), true
}
