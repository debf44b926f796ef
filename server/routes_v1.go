package server

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/tasks"
)

// setup makes what the REST v1 routes need beyond the engine: metrics and
// the inbox projection, both fed by engine events.
func (s *Server) setup() {
	s.metrics = newMetrics(s.eng)
	s.inbox = tasks.NewInbox()
	s.unsubscribe = append(s.unsubscribe, s.eng.Subscribe(s.metrics), s.eng.Subscribe(s.inbox))
}

// loadInbox fills the inbox projection from the store; it is subscribed
// first, so nothing committed meanwhile is missed.
func (s *Server) loadInbox() error {
	ctx, cancel := context.WithTimeout(context.Background(), max(s.cfg.RequestTimeout, time.Minute))
	defer cancel()
	return s.inbox.Load(ctx, s.eng.Queries())
}

// Close stops the server's background work and its engine subscriptions.
// Serve calls it when it shuts down; a server used through App only (tests)
// calls it when done. Calling it again does nothing.
func (s *Server) Close() {
	for _, u := range s.unsubscribe {
		u()
	}
	s.unsubscribe = nil
}

// middleware runs before every route: correlation id, request log and
// latency metric, panic recovery (a 500 envelope), $-key guard, rate limit.
func (s *Server) middleware() []any {
	return []any{correlate, s.observe, recover.New(recover.Config{EnableStackTrace: true, StackTraceHandler: s.logPanic}), guardKeys, s.rateLimit()}
}

// logPanic logs a handler's panic with its stack; observe then logs the
// request as a 500.
func (s *Server) logPanic(c *fiber.Ctx, e any) {
	s.log.Error("handler panicked", "panic", fmt.Sprint(e), "stack", string(debug.Stack()),
		"method", c.Method(), "path", c.Path(), "correlation_id", correlationID(c))
}

// routesV1 registers the REST v1 routes beyond the core ones in routes.
// Writes need a role (admins have every role): enabling versions designer,
// changing instances, incidents and dead letters operator, claiming tasks
// worker, external jobs worker or operator.
func (s *Server) routesV1(api fiber.Router) {
	api.Get("/openapi.json", s.openAPI)

	api.Get("/definitions", s.listDefinitions)
	api.Get("/definitions/:key", s.getDefinition)
	api.Get("/definitions/:key/diff", s.diffDefinitions)
	api.Get("/definitions/:key/versions", s.listVersions)
	api.Get("/definitions/:key/versions/:v", s.getDefinition)
	api.Get("/definitions/:key/versions/:v/xml", s.definitionSource)
	designer := identity.RequireRole(identity.RoleDesigner)
	operator := identity.RequireRole(identity.RoleOperator)
	// Task work: workers claim and complete; workers and operators (who
	// oversee every task) release, delegate and comment; package tasks
	// decides what each may do to which task.
	humanWork := identity.RequireRole(identity.RoleWorker, identity.RoleOperator)
	jobWorker := identity.RequireRole(identity.RoleWorker, identity.RoleOperator)
	api.Post("/definitions/:key/versions/:v/enable", designer, s.setEnabled(true))
	api.Post("/definitions/:key/versions/:v/disable", designer, s.setEnabled(false))

	api.Get("/instances", s.listInstances)
	api.Post("/instances/:id/variables", operator, s.setVariables)
	api.Post("/instances/:id/modify", operator, s.modifyInstance)

	api.Get("/definitions/:key/start-form", s.startForm)

	api.Get("/filters", s.listFilters)
	api.Post("/filters", s.saveFilter)
	api.Delete("/filters/:name", s.deleteFilter)

	api.Get("/forms", s.listForms)
	api.Post("/forms", designer, s.deployForm)
	api.Get("/forms/:id", s.getForm)
	api.Get("/forms/:id/versions/:v", s.getForm)

	api.Get("/tasks/:id", s.getTask)
	api.Get("/tasks/:id/form", s.taskForm)
	api.Post("/tasks/:id/claim", identity.RequireRole(identity.RoleWorker), s.claimTask)
	api.Post("/tasks/:id/release", humanWork, s.releaseTask)
	api.Post("/tasks/:id/delegate", humanWork, s.delegateTask)
	api.Post("/tasks/:id/comments", humanWork, s.commentTask)

	api.Post("/signals", identity.RequireRole(s.cfg.EventRoles...), s.signal)

	api.Post("/jobs/fetch-and-lock", jobWorker, s.fetchAndLock)
	api.Post("/jobs/:key/complete", jobWorker, s.completeJob)
	api.Post("/jobs/:key/fail", jobWorker, s.failJob)
	api.Post("/jobs/:key/extend-lock", jobWorker, s.extendLock)

	// Incidents and dead letters carry instance data: those who read every
	// instance read them.
	readsAll := identity.RequireRole(identity.RoleOperator, identity.RoleDesigner)
	api.Get("/incidents", readsAll, s.listIncidents)
	api.Post("/incidents/retry", operator, s.retryIncidents)
	api.Post("/incidents/:id/resolve", operator, s.resolveIncident)

	api.Get("/dead-letters", readsAll, s.listDeadLetters)
	api.Post("/dead-letters/replay", operator, s.replayDeadLetters)
	api.Get("/dead-letters/:id", readsAll, s.getDeadLetter)
	api.Post("/dead-letters/:id/replay", operator, s.replayDeadLetter)
	api.Delete("/dead-letters/:id", operator, s.deleteDeadLetter)
}

var _ engine.Exporter = (*metrics)(nil)
