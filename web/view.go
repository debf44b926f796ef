package web

import (
	"fmt"
	"net/url"
	"time"

	"github.com/workflowpp/wfpp/static"
)

// Page is what every page's layout needs.
type Page struct {
	Title  string
	Active string // the nav entry to highlight: designer, definitions, instances, inbox, incidents, deadletters, cluster
	User   User
	Local  bool     // the local dev profile: identity is off
	Module string   // the page's ES module under /static/js, "" for none
	Styles []string // extra stylesheets under /static/vendor/css
	// CSRF is the token fetches send in X-CSRF-Token and forms in CSRFField.
	CSRF      string
	CSRFField string
	// InboxCount is how many open tasks the user holds (kept live by common.js).
	InboxCount int
	// Can is what the user's roles allow: pages show only those actions.
	Can Abilities
}

// Abilities are the actions a page may offer, from the user's roles (the
// server checks them again on every request).
type Abilities struct {
	Design  bool // deploy, enable and disable definitions (designer)
	Operate bool // pause, resume, cancel, edit variables, retry and replay (operator)
	Work    bool // claim and complete tasks (worker)
	ReadAll bool // every instance, incidents and dead letters (operator, designer)
}

// User is the signed-in person.
type User struct {
	Name   string
	Groups []string
	Roles  []string
}

// Asset is the URL of one of the app's own static files, versioned so a new
// build is never served from a stale cache.
func Asset(path string) string { return "/static/" + path + "?v=" + static.Version }

// Vendor is the URL of a vendored stylesheet.
func Vendor(path string) string { return "/static/vendor/css/" + path }

// Pager links the pages of a list: the cursor for the next page, and the
// query the list was asked with.
type Pager struct {
	Path  string
	Query url.Values
	Next  string // cursor of the next page; "" on the last page
	Prev  bool   // whether an earlier page exists (links back to the first)
	Shown int
	Param string // the query parameter of the cursor; "" means cursor
}

func (p Pager) param() string {
	if p.Param == "" {
		return "cursor"
	}
	return p.Param
}

// NextURL is the link to the next page.
func (p Pager) NextURL() string {
	q := url.Values{}
	for k, v := range p.Query {
		q[k] = v
	}
	q.Set(p.param(), p.Next)
	return p.Path + "?" + q.Encode()
}

// FirstURL is the link to the first page.
func (p Pager) FirstURL() string {
	q := url.Values{}
	for k, v := range p.Query {
		if k != p.param() {
			q[k] = v
		}
	}
	if len(q) == 0 {
		return p.Path
	}
	return p.Path + "?" + q.Encode()
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func fmtDate(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

func fmtTimePtr(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return fmtTime(*t)
}

func itoa(n int) string { return fmt.Sprint(n) }

// boolAttr renders a flag as a data attribute's "true" or "false".
func boolAttr(b bool) string { return fmt.Sprint(b) }
