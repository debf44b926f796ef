package server

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/web"
)

// PageSizeDefault is how many rows a page's list shows.
const PageSizeDefault = 50

// pageCSP keeps pages to their own scripts: even a label that slipped
// through escaping could not run. bpmn-js and form-js set inline styles.
const pageCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self' ws: wss:; " +
	"object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

// pageRoutes registers the web app: pages, their helper endpoints under /ui
// and the static files.
func (s *Server) pageRoutes() {
	sf, err := pageStaticFS()
	if err != nil {
		// The files are embedded: failing here is a broken build.
		panic("reading embedded static files: " + err.Error())
	}
	s.app.Get("/static/*", sf.serve)
	s.app.Post("/api/v1/definitions/validate", s.pageValidate)

	s.app.Get("/", func(c *fiber.Ctx) error { return c.Redirect("/inbox", http.StatusFound) })
	s.app.Get("/designer", s.page(s.designerPage))
	s.app.Get("/designer/:key", s.page(s.designerPage))
	s.app.Get("/definitions", s.page(s.definitionsPage))
	s.app.Get("/definitions/:key", s.page(s.definitionPage))
	s.app.Get("/instances", s.page(s.instancesPage))
	s.app.Get("/instances/:id", s.page(s.monitorPage))
	s.app.Get("/inbox", s.page(s.inboxPage))
	s.app.Get("/incidents", s.page(s.incidentsPage))

	ui := s.app.Group("/ui", identity.RequireUser)
	ui.Get("/inbox", s.inboxFragment)
	ui.Get("/inbox/count", s.inboxCount)
	ui.Post("/filters", s.saveFilter)
	ui.Delete("/filters/:name", s.deleteFilter)
	ui.Get("/instances", s.instancesFragment)
	ui.Get("/definitions/:key/:version/source", s.pageDefinitionSource)
	ui.Get("/definitions/:key/:version/heatmap", s.pageHeatmap)
	designer, operator := identity.RequireRole(identity.RoleDesigner), identity.RequireRole(identity.RoleOperator) // as the REST routes
	ui.Post("/definitions/:id/enable", designer, s.pageSetEnabled(true))
	ui.Post("/definitions/:id/disable", designer, s.pageSetEnabled(false))
	ui.Get("/tasks/:id", s.uiTask)
	ui.Get("/tasks/:id/form", s.taskForm)
	worker, humanWork := identity.RequireRole(identity.RoleWorker), identity.RequireRole(identity.RoleWorker, identity.RoleOperator) // as the REST task routes
	ui.Post("/tasks/:id/claim", worker, s.uiClaim)
	ui.Post("/tasks/:id/release", humanWork, s.uiRelease)
	ui.Post("/tasks/:id/delegate", humanWork, s.uiDelegate)
	ui.Post("/tasks/:id/complete", worker, s.uiComplete)
	ui.Post("/tasks/:id/comments", humanWork, s.uiComment)
	ui.Post("/instances/:id/incidents/:incident/retry", operator, s.uiRetry)
	ui.Post("/deadletters/:id/replay", operator, s.uiReplay)
	ui.Delete("/deadletters/:id", operator, s.uiDeleteDeadLetter)
}

// page wraps a page handler: its errors become an HTML page in words, not
// the API's JSON envelope.
func (s *Server) page(h fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Set("Content-Security-Policy", pageCSP)
		c.Set("X-Content-Type-Options", "nosniff")
		c.Set(fiber.HeaderCacheControl, "no-store")
		if identity.CurrentUser(c) == nil {
			return c.Redirect("/login?next="+url.QueryEscape(c.OriginalURL()), http.StatusSeeOther)
		}
		err := h(c)
		if err == nil {
			return nil
		}
		e := classify(err)
		if e.Status >= 500 {
			s.log.Error("page failed", "path", c.Path(), "correlation_id", correlationID(c), "err", err)
		}
		c.Status(e.Status)
		return renderPage(c, web.ErrorPage(s.pageInfo(c, "Error", ""), e.Status, e.Message))
	}
}

// render writes a component as the HTML response.
func renderPage(c *fiber.Ctx, comp templ.Component) error {
	c.Type("html", "utf-8")
	return comp.Render(c.UserContext(), c.Response().BodyWriter())
}

// pageInfo is the layout data of a page.
func (s *Server) pageInfo(c *fiber.Ctx, title, active string, styles ...string) web.Page {
	u, local, _ := pageUser(c)
	cu := identity.CurrentUser(c)
	return web.Page{
		Title: title, Active: active, User: u, Local: local, Styles: styles,
		CSRF: identity.CSRFToken(c), CSRFField: identity.CSRFField, InboxCount: s.inbox.Count(actorOf(c).task()),
		Can: web.Abilities{Design: cu.Has(identity.RoleDesigner), Operate: cu.Has(identity.RoleOperator), Work: cu.Has(identity.RoleWorker), ReadAll: readsAll(cu)},
	}
}

// pagePager builds the pager of a list page from its request.
func pagePager(c *fiber.Ctx, path string, q url.Values, next string, shown int) web.Pager {
	return web.Pager{Path: path, Query: q, Next: next, Prev: c.Query("cursor") != "", Shown: shown}
}

// pageOffset pages a list the store returns whole: the cursor is the offset.
func pageOffset(c *fiber.Ctx, n, size int) (lo, hi int, next string) {
	lo, _ = strconv.Atoi(c.Query("cursor"))
	lo = min(max(lo, 0), n)
	hi = min(lo+size, n)
	if hi < n {
		next = strconv.Itoa(hi)
	}
	return lo, hi, next
}

// definitionKeys lists the key of every deployed definition, sorted, for the
// pages' process filters.
func (s *Server) definitionKeys(c *fiber.Ctx) ([]string, error) {
	ctx, cancel := s.ctx(c)
	defer cancel()
	defs, err := s.eng.Queries().Definitions(ctx)
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, rec := range defs {
		if !slices.Contains(keys, rec.Key) {
			keys = append(keys, rec.Key)
		}
	}
	slices.Sort(keys)
	return keys, nil
}
