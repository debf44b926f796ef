package server

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/tasks"
)

// setup makes what the REST v1 routes need beyond the engine: metrics and
// the inbox projection, both fed by engine events.
func (s *Server) setup() {
	s.metrics = newMetrics(s.eng)
	s.inbox = tasks.NewInbox()
	s.unsubscribe = append(s.unsubscribe, s.eng.Subscribe(s.metrics), s.eng.Subscribe(s.inbox))
	if src := s.cfg.Live.Source; src != nil { // other replicas' events: their task changes too
		f := s.inbox.Follow(s.eng.Queries(), s.log)
		subscribe := src.Subscribe
		if ts, ok := src.(interface {
			SubscribeTasks(fn func([]engine.Event)) func()
		}); ok { // the follower needs task changes only: the source may read less
			subscribe = ts.SubscribeTasks
		}
		s.unsubscribe = append(s.unsubscribe, subscribe(f.Export), f.Close)
	}
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
	if s.forwarder != nil {
		s.forwarder.Close()
	}
}

// middleware runs before every route: correlation id, request log and
// latency metric, panic recovery (a 500 envelope), $-key guard, rate limit,
// and in a cluster the forwarding of requests for other replicas'
// instances (the rate limit counted them here already).
func (s *Server) middleware() []any {
	mw := []any{api.Correlate, s.observe, recover.New(recover.Config{EnableStackTrace: true, StackTraceHandler: s.logPanic}), api.GuardKeys, s.rateLimit()}
	if s.forwarder != nil {
		mw = append(mw, s.forwarder.Handle)
	}
	return mw
}

// logPanic logs a handler's panic with its stack; observe then logs the
// request as a 500.
func (s *Server) logPanic(c *fiber.Ctx, e any) {
	s.log.Error("handler panicked", "panic", fmt.Sprint(e), "stack", string(debug.Stack()),
		"method", c.Method(), "path", c.Path(), "correlation_id", api.CorrelationID(c))
}

var _ engine.Exporter = (*metrics)(nil)
