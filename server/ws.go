package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	fws "github.com/gofiber/contrib/websocket"
	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/server/live"
)

// liveRoutes serves GET /ws. Call it after identityRoutes.
func (s *Server) liveRoutes() {
	src := s.cfg.Live.Source
	if src == nil {
		src = live.EngineSource{Engine: s.eng}
	}
	h := live.New(src, s.eng.Queries(), s.log, s.cfg.Live, live.Access{
		Instance: func(ctx context.Context, v live.Viewer, id string) error {
			_, err := s.api.ReadInstance(ctx, v.(*identity.User), id)
			return err
		},
		Definition: func(ctx context.Context, v live.Viewer, key string) error {
			ok, err := s.api.MayReadDefinitionEvents(ctx, v.(*identity.User), key)
			if err == nil && !ok {
				err = fmt.Errorf("definition %s: %w", key, engine.ErrNotFound)
			}
			return err
		},
	})
	s.hub = h
	if l, ok := src.(interface{ Lag() time.Duration }); ok {
		s.metrics.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "wfpp_live_event_lag_seconds",
			Help: "How late other replicas' events reach this one's WebSocket hub: the largest delay of the last second or two.",
		}, func() float64 { return l.Lag().Seconds() }))
	}
	allowed := newOriginCheck(s.cfg.Live.AllowedOrigins, s.cfg.Identity.Local)
	s.app.Get("/ws", func(c *fiber.Ctx) error {
		if !fws.IsWebSocketUpgrade(c) {
			return &api.Error{Status: http.StatusUpgradeRequired, Code: "upgrade_required", Message: "GET /ws takes a WebSocket upgrade"}
		}
		if o := c.Get(fiber.HeaderOrigin); o != "" && !allowed(o, c.Get(fiber.HeaderHost)) {
			return api.Forbidden(fmt.Sprintf("origin %q may not open /ws: add it to the allowed origins", o))
		}
		return identity.RequireUser(c)
	}, fws.New(func(conn *fws.Conn) {
		u, _ := conn.Locals(identity.LocalsKey).(*identity.User)
		h.Serve(conn.Conn, u)
	}, fws.Config{ReadBufferSize: 4096, WriteBufferSize: 256}))
	s.app.Hooks().OnShutdown(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
		defer cancel()
		h.Close(ctx)
		return nil
	})
}

// Hub returns the server's WebSocket hub.
func (s *Server) Hub() *live.Hub { return s.hub }

func newOriginCheck(allowed []string, local bool) func(origin, host string) bool {
	return func(origin, host string) bool {
		if slices.Contains(allowed, "*") || slices.ContainsFunc(allowed, func(a string) bool {
			return strings.EqualFold(strings.TrimSuffix(a, "/"), origin)
		}) {
			return true
		}
		u, err := url.Parse(origin)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return false
		}
		if strings.EqualFold(u.Host, host) {
			return true
		}
		switch u.Hostname() {
		case "localhost", "127.0.0.1", "::1":
			return local && u.Scheme == "http"
		}
		return false
	}
}
