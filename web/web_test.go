package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/web"
)

const markup = `<img src=x onerror=alert(1)>`

func TestPagesEscapeUserText(t *testing.T) {
	t.Parallel()
	p := web.Page{Title: markup, Active: "inbox", User: web.User{Name: markup, Groups: []string{markup}}, Local: true}
	d := web.InboxData{
		Filter: "all", Tasks: []web.TaskRow{{ID: "t1", Name: markup, Definition: markup, Assignee: markup}},
		Processes: []string{markup},
	}
	var b strings.Builder
	require.NoError(t, web.InboxPage(p, d).Render(context.Background(), &b))
	html := b.String()
	require.NotContains(t, html, "<img")
	require.Contains(t, html, "&lt;img src=x onerror=alert(1)&gt;")
	require.Contains(t, html, `aria-current="page">Inbox<`)
	require.Contains(t, html, "local profile")
}

func TestPagerLinks(t *testing.T) {
	t.Parallel()
	p := web.Pager{Path: "/inbox", Query: url.Values{"filter": {"mine"}}, Next: "t9", Prev: true}
	require.Equal(t, "/inbox?cursor=t9&filter=mine", p.NextURL())
	require.Equal(t, "/inbox?filter=mine", p.FirstURL())
	p = web.Pager{Path: "/incidents", Query: url.Values{}, Next: "50", Param: "dcursor"}
	require.Equal(t, "/incidents?dcursor=50", p.NextURL())
	require.Equal(t, "/incidents", p.FirstURL())
}

func TestAssetIsVersioned(t *testing.T) {
	t.Parallel()
	require.Regexp(t, `^/static/js/inbox\.js\?v=[0-9a-f]{12}$`, web.Asset("js/inbox.js"))
}
