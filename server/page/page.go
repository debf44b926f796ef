package page

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/tasks"
	"github.com/workflowpp/wfpp/web"
)

// PageSizeDefault is how many rows a page's list shows.
const PageSizeDefault = 50

// pageCSP keeps pages to their own scripts: even a label that slipped
// through escaping could not run. bpmn-js and form-js set inline styles.
const pageCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self' ws: wss:; " +
	"object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

// Config configures a Service.
type Config struct {
	Engine         *engine.Engine // required
	API            *api.Service   // required: the pages share its rules and task actions
	Tasks          *tasks.Service // required
	Inbox          *tasks.Inbox   // required
	Logger         *slog.Logger
	RequestTimeout time.Duration // how long one engine or store call may take
}

// Service renders the web app's pages and answers their helper endpoints.
type Service struct {
	cfg   Config
	eng   *engine.Engine
	api   *api.Service
	log   *slog.Logger
	tasks *tasks.Service
	inbox *tasks.Inbox
}

// New returns the pages of cfg.
func New(cfg Config) (*Service, error) {
	if cfg.Engine == nil || cfg.API == nil || cfg.Tasks == nil || cfg.Inbox == nil {
		return nil, errors.New("page config: Engine, API, Tasks and Inbox are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.RequestTimeout = cmp.Or(cfg.RequestTimeout, 30*time.Second)
	return &Service{cfg: cfg, eng: cfg.Engine, api: cfg.API, log: cfg.Logger, tasks: cfg.Tasks, inbox: cfg.Inbox}, nil
}

// Routes registers the web app on app: pages, their helper endpoints under
// /ui and the static files. The /ui actions need the roles of the REST
// routes they stand for, and answer as those do (package api).
func (s *Service) Routes(app *fiber.App) {
	sf, err := staticFS()
	if err != nil {
		// The files are embedded: failing here is a broken build.
		panic("reading embedded static files: " + err.Error())
	}
	app.Get("/static/*", sf.serve)

	app.Get("/", func(c *fiber.Ctx) error { return c.Redirect("/inbox", http.StatusFound) })
	app.Get("/designer", s.page(s.designerPage))
	app.Get("/designer/:key", s.page(s.designerPage))
	app.Get("/definitions", s.page(s.definitionsPage))
	app.Get("/definitions/:key", s.page(s.definitionPage))
	app.Get("/instances", s.page(s.instancesPage))
	app.Get("/instances/:id", s.page(s.monitorPage))
	app.Get("/inbox", s.page(s.inboxPage))
	app.Get("/schedules", s.page(s.schedulesPage))
	app.Get("/incidents", s.page(s.incidentsPage))
	app.Get("/dead-letters", s.page(s.deadLettersPage))
	app.Get("/cluster", s.page(s.clusterPage))

	designer, operator := identity.RequireRole(identity.RoleDesigner), identity.RequireRole(identity.RoleOperator)
	worker, humanWork := identity.RequireRole(identity.RoleWorker), identity.RequireRole(identity.RoleWorker, identity.RoleOperator)
	ui := app.Group("/ui", identity.RequireUser)
	ui.Get("/inbox", s.inboxFragment)
	ui.Get("/inbox/count", s.inboxCount)
	ui.Post("/filters", s.api.SaveFilter)
	ui.Delete("/filters/:name", s.api.DeleteFilter)
	ui.Get("/instances", s.instancesFragment)
	ui.Get("/definitions/:key/:version/source", s.definitionSource)
	ui.Get("/definitions/:key/:version/diagram", s.definitionDiagram)
	ui.Get("/definitions/:key/:version/heatmap", s.heatmap)
	ui.Post("/definitions/:id/enable", designer, s.setEnabled(true))
	ui.Post("/definitions/:id/disable", designer, s.setEnabled(false))
	ui.Get("/tasks/:id", s.task)
	ui.Get("/tasks/:id/form", s.api.TaskForm)
	ui.Post("/tasks/:id/claim", worker, s.api.ClaimTask)
	ui.Post("/tasks/:id/release", humanWork, s.api.ReleaseTask)
	ui.Post("/tasks/:id/delegate", humanWork, s.api.DelegateTask)
	// On an unassigned task, complete claims and completes in one action
	// (the claim policy of package tasks).
	ui.Post("/tasks/:id/complete", worker, s.api.CapVariables, s.api.CompleteTask)
	ui.Post("/tasks/:id/comments", humanWork, s.api.CommentTask)
	ui.Post("/instances/:id/incidents/:incident/retry", operator, s.api.CapVariables, s.retry)
	ui.Post("/deadletters/replay", operator, s.api.CapVariables, s.api.ReplayDeadLetters)
	ui.Post("/deadletters/discard", operator, s.api.DiscardDeadLetters)
	ui.Post("/deadletters/purge", operator, s.api.PurgeDeadLetters)
	ui.Post("/deadletters/:id/replay", operator, s.api.CapVariables, s.api.ReplayDeadLetter)
	ui.Post("/deadletters/:id/discard", operator, s.api.DiscardDeadLetter)
	ui.Delete("/deadletters/:id", operator, s.api.DeleteDeadLetter)
}

// ctx is the context of one engine or store call made for request c.
func (s *Service) ctx(c *fiber.Ctx) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.UserContext(), s.cfg.RequestTimeout)
}

// page wraps a page handler: its errors become an HTML page in words, not
// the API's JSON envelope.
func (s *Service) page(h fiber.Handler) fiber.Handler {
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
		e := api.Classify(err)
		if e.Status >= 500 {
			s.log.Error("page failed", "path", c.Path(), "correlation_id", api.CorrelationID(c), "err", err)
		}
		c.Status(e.Status)
		return renderPage(c, web.ErrorPage(s.layout(c, "Error", ""), e.Status, e.Message))
	}
}

// render writes a component as the HTML response.
func renderPage(c *fiber.Ctx, comp templ.Component) error {
	c.Type("html", "utf-8")
	return comp.Render(c.UserContext(), c.Response().BodyWriter())
}

// layout is the layout data of a page.
func (s *Service) layout(c *fiber.Ctx, title, active string, styles ...string) web.Page {
	u, local, _ := currentUser(c)
	cu := identity.CurrentUser(c)
	return web.Page{
		Title: title, Active: active, User: u, Local: local, Styles: styles,
		CSRF: identity.CSRFToken(c), CSRFField: identity.CSRFField, InboxCount: s.inbox.Count(api.ActorOf(c).Task()),
		Can: web.Abilities{Design: cu.Has(identity.RoleDesigner), Operate: cu.Has(identity.RoleOperator), Work: cu.Has(identity.RoleWorker), ReadAll: api.ReadsAll(cu)},
	}
}

// pager builds the pager of a list page from its request.
func pager(c *fiber.Ctx, path string, q url.Values, next string, shown int) web.Pager {
	return web.Pager{Path: path, Query: q, Next: next, Prev: c.Query("cursor") != "", Shown: shown}
}

// offsetPage pages a list the store returns whole: the cursor is the offset.
func offsetPage(c *fiber.Ctx, n, size int) (lo, hi int, next string) {
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
func (s *Service) definitionKeys(c *fiber.Ctx) ([]string, error) {
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
