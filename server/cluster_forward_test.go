package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/server"
	"github.com/workflowpp/wfpp/server/cluster"
	"github.com/workflowpp/wfpp/server/identity"
)

// replica is one server of a cluster on a loopback port, with its engine on
// a store of its own.
type replica struct {
	id, addr string
	eng      *engine.Engine
	srv      *server.Server
}

// startReplica starts replica id, listening on ln, with the peers whose
// heartbeats are in leases; routes adds test routes before it serves, mods
// engine adds to the engine's config.
func startReplica(t *testing.T, id string, ln net.Listener, leases engine.LeaseStore, secret string, routes func(*fiber.App), mods ...func(*engine.Config)) *replica {
	t.Helper()
	peers, err := cluster.New(cluster.Config{Self: id, Replicas: leases, Secret: secret})
	require.NoError(t, err)
	t.Cleanup(peers.Close)
	cfg := engine.Config{Store: memstore.New(), Clock: engine.RealClock{}, Partitions: 2, NodeWorkers: 2, Peers: peers}
	for _, m := range mods {
		m(&cfg)
	}
	eng, err := engine.New(cfg)
	require.NoError(t, err)
	require.NoError(t, eng.Run(context.Background()))
	t.Cleanup(eng.Close)
	srv, err := server.New(server.Config{Engine: eng, Peers: peers, Identity: identity.Config{JWTSecret: testJWTSecret}})
	require.NoError(t, err)
	if routes != nil {
		routes(srv.App())
	}
	serveUntilCleanup(t, srv, ln)
	return &replica{id: id, addr: ln.Addr().String(), eng: eng, srv: srv}
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return ln
}

// operatorBearer is an Authorization header of an operator and worker.
func operatorBearer(t *testing.T) string {
	claims := jwt.MapClaims{"sub": "olga", "exp": time.Now().Add(time.Hour).Unix(), "roles": []any{identity.RoleOperator, identity.RoleWorker}}
	return "Bearer " + signToken(t, jwt.SigningMethodHS256, []byte(testJWTSecret), claims)
}

// send posts body to url with the operator's token and extra headers.
func send(t *testing.T, url, body string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if _, ok := headers["Authorization"]; !ok {
		req.Header.Set("Authorization", operatorBearer(t))
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

// TestForwardToOwner: a route that meets a NotOwnerError on replica a is
// answered by the owner b, as b answers it: the request arrives whole
// (method, path, query, Authorization, body) and b's status, headers and
// body come back. A request forwarded once, an owner without address and
// an owner that does not answer are 503s with Retry-After.
func TestForwardToOwner(t *testing.T) {
	t.Parallel()
	hb := memstore.New()
	lnB := listen(t)
	gone := listen(t)
	goneAddr := gone.Addr().String()
	require.NoError(t, gone.Close())
	startReplica(t, "b", lnB, hb, "", func(app *fiber.App) {
		app.Post("/test/echo", func(c *fiber.Ctx) error {
			c.Set("X-Echo", "from b")
			return c.Status(http.StatusCreated).JSON(fiber.Map{
				"method": c.Method(), "url": c.OriginalURL(), "authorization": c.Get("Authorization"),
				"forwarded": c.Get(cluster.ForwardedHeader), "body": string(c.Body()),
			})
		})
	})
	a := startReplica(t, "a", listen(t), hb, "", func(app *fiber.App) {
		app.Post("/test/echo", func(*fiber.Ctx) error {
			return &engine.NotOwnerError{Partition: 3, Owner: "b", Address: lnB.Addr().String()}
		})
		app.Post("/test/orphan", func(*fiber.Ctx) error { return &engine.NotOwnerError{Partition: 5} })
		app.Post("/test/gone", func(*fiber.Ctx) error {
			return &engine.NotOwnerError{Partition: 7, Owner: "c", Address: goneAddr}
		})
	})

	token := operatorBearer(t)
	resp, body := send(t, "http://"+a.addr+"/test/echo?x=1&y=two", `{"hello":"b"}`, map[string]string{"Authorization": token})
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(body))
	require.Equal(t, "from b", resp.Header.Get("X-Echo"))
	var echo map[string]string
	require.NoError(t, json.Unmarshal(body, &echo))
	require.Equal(t, map[string]string{
		"method": "POST", "url": "/test/echo?x=1&y=two", "authorization": token, "forwarded": "a", "body": `{"hello":"b"}`,
	}, echo)

	unavailable := func(path string, headers map[string]string, says string) {
		t.Helper()
		resp, body := send(t, "http://"+a.addr+path, `{}`, headers)
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, string(body))
		require.Equal(t, "1", resp.Header.Get(fiber.HeaderRetryAfter))
		var env struct {
			Error struct{ Code, Message string }
		}
		require.NoError(t, json.Unmarshal(body, &env))
		require.Equal(t, "partition_moving", env.Error.Code)
		require.Contains(t, env.Error.Message, says)
	}
	unavailable("/test/echo", map[string]string{cluster.ForwardedHeader: "c"}, "partition is moving between replicas")
	unavailable("/test/orphan", nil, "partition 5 has no owner right now")
	unavailable("/test/gone", nil, "forwarding to replica c at "+goneAddr+" failed")
}

// getJSON gets url with the operator's token.
func getJSON(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", operatorBearer(t))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}
