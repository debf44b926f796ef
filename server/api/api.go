// Package api is the REST API v1 of Workflow++ under /api/v1, described by
// /api/v1/openapi.json. Package server mounts it.
//
// Rules of the package:
//   - Handlers only translate HTTP to engine and tasks calls and back; the
//     work is in package engine (and tasks for human work).
//   - Every error leaves through one envelope,
//     {"error":{"code","message","details","correlationId","timestamp"}}, built
//     by HandleError from the engine's sentinel and typed errors.
//   - Request bodies are decoded strictly: malformed JSON and unknown fields
//     are 400 with a message naming the field; so are unknown query
//     parameters and malformed cursors, limits and dates.
//   - A $-prefixed key anywhere in a query string or JSON body (deployed
//     sources aside) is 400 (GuardKeys): such keys are store operators,
//     never our data.
//   - Lists answer {"items","next"}: ?limit= (default 50, at most 500) and
//     ?cursor= (the previous page's next, opaque).
//   - Who may read an instance is decided once, in access.go, for REST, the
//     pages and the WebSocket.
package api

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/tasks"
)

// Config configures a Service.
type Config struct {
	Engine         *engine.Engine // required
	Tasks          *tasks.Service // required: human work
	Inbox          *tasks.Inbox   // required: the inbox projection
	Logger         *slog.Logger
	RequestTimeout time.Duration // how long one engine or store call may take
	// EventRoles may send messages and signals (admins always).
	EventRoles []string
	// Peers are the other replicas of a cluster, asked for the external
	// jobs this one lacks and for the bulk items they hold; nil: the
	// server runs alone.
	Peers Peers
	// Cluster is the view of the replicas and partitions (required);
	// LeaseTTL is the cluster's lease TTL, how old a live replica's
	// heartbeat may be.
	Cluster  ClusterStater
	LeaseTTL time.Duration
}

// Peers are the other replicas of a cluster (cluster.Peers). Each locks
// only the external jobs of its own partitions, and runs only the items of
// a bulk operation its partitions hold.
type Peers interface {
	FetchAndLock(ctx context.Context, typ, worker string, max int, lock time.Duration) []engine.ExternalJob
	// Bulk runs order on owner, whose partitions hold its items, and
	// returns owner's answer (Done and Failed).
	Bulk(ctx context.Context, owner engine.Replica, order BulkOrder) (BulkResult, error)
}

// Service holds the REST handlers.
type Service struct {
	cfg   Config
	eng   *engine.Engine
	log   *slog.Logger
	tasks *tasks.Service
	inbox *tasks.Inbox
}

// New returns the REST handlers of cfg.
func New(cfg Config) (*Service, error) {
	if cfg.Engine == nil || cfg.Tasks == nil || cfg.Inbox == nil || cfg.Cluster == nil {
		return nil, errors.New("api config: Engine, Tasks, Inbox and Cluster are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.RequestTimeout = cmp.Or(cfg.RequestTimeout, 30*time.Second)
	return &Service{cfg: cfg, eng: cfg.Engine, log: cfg.Logger, tasks: cfg.Tasks, inbox: cfg.Inbox}, nil
}

// Routes registers the REST v1 routes on api, the /api/v1 group. Writes need
// a role (admins have every role): deploying and enabling versions
// designer, changing instances, incidents, dead letters and circuit breakers operator,
// claiming and completing tasks worker, external jobs worker or operator;
// any user may start instances and read what access.go lets them.
func (s *Service) Routes(api fiber.Router) {
	designer := identity.RequireRole(identity.RoleDesigner)
	operator := identity.RequireRole(identity.RoleOperator)
	worker := identity.RequireRole(identity.RoleWorker)
	// Task work: workers claim and complete; workers and operators (who
	// oversee every task) release, delegate and comment; package tasks
	// decides what each may do to which task.
	humanWork := identity.RequireRole(identity.RoleWorker, identity.RoleOperator)
	jobWorker := identity.RequireRole(identity.RoleWorker, identity.RoleOperator)
	events := identity.RequireRole(s.cfg.EventRoles...)
	// Incidents and dead letters carry instance data: those who read every
	// instance read them.
	readsEvery := identity.RequireRole(identity.RoleOperator, identity.RoleDesigner)
	// Bodies with variables are capped before they are decoded.
	vars := s.CapVariables

	api.Get("/openapi.json", s.openAPI)
	api.Get("/job-types", s.jobTypes)
	api.Get("/timers/preview", s.previewTimer)
	api.Post("/scripts/check", s.checkScript)

	api.Post("/definitions", designer, s.deploy)
	api.Post("/definitions/validate", s.validate)
	api.Get("/definitions", s.listDefinitions)
	api.Get("/definitions/:key", s.getDefinition)
	api.Get("/definitions/:key/diff", s.diffDefinitions)
	api.Get("/definitions/:key/versions", s.listVersions)
	api.Get("/definitions/:key/versions/:v", s.getDefinition)
	api.Get("/definitions/:key/versions/:v/xml", s.definitionSource)
	api.Post("/definitions/:key/versions/:v/enable", designer, s.setEnabled(true))
	api.Post("/definitions/:key/versions/:v/disable", designer, s.setEnabled(false))
	api.Patch("/definitions/:key/versions/:v", designer, s.setVersionStatus)
	api.Post("/definitions/:key/rollback", designer, s.rollback)
	api.Get("/definitions/:key/start-form", s.startForm)

	api.Post("/instances", vars, s.startInstance)
	api.Get("/instances", s.listInstances)
	api.Get("/instances/:id", s.getInstance)
	api.Post("/instances/:id/pause", operator, s.control((*engine.Engine).Pause))
	api.Post("/instances/:id/resume", operator, s.control((*engine.Engine).Resume))
	api.Post("/instances/:id/cancel", operator, s.control((*engine.Engine).Cancel))
	api.Post("/instances/:id/variables", operator, vars, s.setVariables)
	api.Post("/instances/:id/modify", operator, vars, s.modifyInstance)
	api.Post("/instances/:id/trigger", events, vars, s.triggerElement)
	api.Post("/instances/:id/adhoc/:elementId/activate", events, vars, s.activateAdHoc)

	api.Get("/filters", s.listFilters)
	api.Post("/filters", s.SaveFilter)
	api.Delete("/filters/:name", s.DeleteFilter)

	api.Get("/forms", s.listForms)
	api.Post("/forms", designer, s.deployForm)
	api.Get("/forms/:id", s.getForm)
	api.Get("/forms/:id/versions/:v", s.getForm)

	api.Get("/tasks", s.listTasks)
	api.Get("/tasks/:id", s.getTask)
	api.Get("/tasks/:id/form", s.TaskForm)
	api.Post("/tasks/:id/claim", worker, s.ClaimTask)
	api.Post("/tasks/:id/release", humanWork, s.ReleaseTask)
	api.Post("/tasks/:id/delegate", humanWork, s.DelegateTask)
	api.Post("/tasks/:id/complete", worker, vars, s.CompleteTask)
	api.Post("/tasks/:id/comments", humanWork, s.CommentTask)

	api.Post("/messages", events, vars, s.correlate)
	api.Post("/signals", events, vars, s.signal)
	api.Post("/conditions", events, vars, s.startByConditions)

	api.Post("/jobs/fetch-and-lock", jobWorker, s.fetchAndLock)
	api.Post("/jobs/:key/complete", jobWorker, vars, s.completeJob)
	api.Post("/jobs/:key/fail", jobWorker, vars, s.failJob)
	api.Post("/jobs/:key/extend-lock", jobWorker, s.extendLock)
	api.Post("/jobs/:key/progress", jobWorker, s.jobProgress)

	api.Get("/incidents", readsEvery, s.listIncidents)
	api.Post("/incidents/retry", operator, vars, s.retryIncidents)
	api.Post("/incidents/:id/resolve", operator, vars, s.resolveIncident)

	api.Get("/dead-letters", readsEvery, s.listDeadLetters)
	api.Post("/dead-letters/replay", operator, vars, s.ReplayDeadLetters)
	api.Post("/dead-letters/discard", operator, s.DiscardDeadLetters)
	api.Post("/dead-letters/purge", operator, s.PurgeDeadLetters)
	api.Get("/dead-letters/:id", readsEvery, s.getDeadLetter)
	api.Post("/dead-letters/:id/replay", operator, vars, s.ReplayDeadLetter)
	api.Post("/dead-letters/:id/discard", operator, s.DiscardDeadLetter)
	api.Delete("/dead-letters/:id", operator, s.DeleteDeadLetter)

	api.Get("/cluster", operator, s.getCluster)

	api.Get("/circuits", s.listCircuits)
	api.Post("/circuits/:key/reset", operator, s.resetCircuit)
	api.Get("/cache", readsEvery, s.listCache)
	api.Post("/cache/invalidate", operator, s.invalidateCache)
	api.Delete("/cache/:key", operator, s.deleteCacheEntry)

	// Schedules start instances on their own: designers and operators keep them.
	schedules := identity.RequireRole(identity.RoleDesigner, identity.RoleOperator)
	api.Get("/schedules", s.listSchedules)
	api.Post("/schedules", schedules, s.createSchedule)
	api.Get("/schedules/:id", s.getSchedule)
	api.Patch("/schedules/:id", schedules, s.patchSchedule)
	api.Delete("/schedules/:id", schedules, s.deleteSchedule)
}

// ctx is the context of one engine or store call made for request c.
func (s *Service) ctx(c *fiber.Ctx) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.UserContext(), s.cfg.RequestTimeout)
}
