package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server"
	"github.com/workflowpp/wfpp/server/identity"
)

// TestReadPermissions runs each role against every read of an instance,
// over REST, pages and the WebSocket: one rule. Operators and designers read
// everything; a worker reads an instance while they may work, or worked, on
// one of its tasks, or when its process names them or their group in
// wf:readers; everything else is "not found" (404, a refused subscription)
// and left out of lists.
func TestReadPermissions(t *testing.T) {
	t.Parallel()
	pw, err := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	require.NoError(t, err)
	user := func(name string, groups []string, roles ...string) identity.UserConfig {
		return identity.UserConfig{Name: name, Password: string(pw), Groups: groups, Roles: roles}
	}
	f := setupLive(t, func(c *server.Config) {
		c.Identity = identity.Config{JWTSecret: testJWTSecret, Users: []identity.UserConfig{
			user("alice", []string{"managers"}, identity.RoleWorker),  // a candidate for the review task
			user("wendy", []string{"warehouse"}, identity.RoleWorker), // nothing to do with it
			user("rita", []string{"auditors"}, identity.RoleWorker),   // her group reads it (wf:readers)
			user("olga", []string{"ops"}, identity.RoleOperator),
			user("dora", []string{"design"}, identity.RoleDesigner),
		}}
	})
	src, err := os.ReadFile("testdata/approval.bpmn")
	require.NoError(t, err)
	withReaders := strings.Replace(string(src), `<bpmn:process id="approval"`, `<bpmn:process wf:readers="auditors" id="approval"`, 1)
	_, _, err = f.eng.Deploy(context.Background(), engine.DeployRequest{Source: []byte(withReaders)})
	require.NoError(t, err)
	id := f.start("approval", map[string]any{"amount": 10})
	require.Eventually(t, func() bool {
		snap, err := f.eng.Instance(context.Background(), id)
		return err == nil && len(snap.Tasks) == 1
	}, 10*time.Second, 5*time.Millisecond)
	// Without wf:readers: only alice (a candidate) among the workers reads it.
	_, _, err = f.eng.Deploy(context.Background(), engine.DeployRequest{Source: []byte(strings.Replace(string(src), `id="approval"`, `id="approval2"`, 1))})
	require.NoError(t, err)
	id2 := f.start("approval2", map[string]any{"amount": 10})

	page := func(who, path string) string {
		req, err := http.NewRequest(http.MethodGet, "http://"+f.addr+path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", bearerFor(t, who))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		return string(b)
	}
	get := func(who, path string) int {
		req, err := http.NewRequest(http.MethodGet, "http://"+f.addr+path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", bearerFor(t, who))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		return resp.StatusCode
	}
	listed := func(who string) map[string]bool {
		var page struct{ Items []struct{ ID string } }
		req, err := http.NewRequest(http.MethodGet, "http://"+f.addr+"/api/v1/instances", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", bearerFor(t, who))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.NoError(t, decodeJSON(resp, &page))
		out := map[string]bool{}
		for _, it := range page.Items {
			out[it.ID] = true
		}
		return out
	}
	subscribe := func(who string, m map[string]any) string {
		c := f.client(http.Header{"Authorization": {bearerFor(t, who)}})
		m["type"] = "subscribe"
		c.send(m)
		return c.read().Type
	}

	for _, tc := range []struct {
		who           string
		reads, reads2 bool // the instance with readers, the one without
		incidents     bool // incidents and dead letters
		definition    bool // a WebSocket subscription to every instance of approval
	}{
		{"alice", true, true, false, false},
		{"wendy", false, false, false, false},
		{"rita", true, false, false, true},
		{"olga", true, true, true, true},
		{"dora", true, true, true, true},
	} {
		t.Run(tc.who, func(t *testing.T) {
			want := func(ok bool, yes int) int {
				if ok {
					return yes
				}
				return http.StatusNotFound
			}
			require.Equal(t, want(tc.reads, http.StatusOK), get(tc.who, "/api/v1/instances/"+id))
			require.Equal(t, want(tc.reads, http.StatusOK), get(tc.who, "/api/v1/instances/"+id+"?include=history"))
			require.Equal(t, want(tc.reads2, http.StatusOK), get(tc.who, "/api/v1/instances/"+id2))
			require.Equal(t, want(tc.reads, http.StatusOK), get(tc.who, "/instances/"+id), "the monitor page")
			l := listed(tc.who)
			require.Equal(t, tc.reads, l[id], "listed")
			require.Equal(t, tc.reads2, l[id2], "listed")
			for _, path := range []string{"/api/v1/incidents", "/api/v1/dead-letters", "/incidents", "/dead-letters"} {
				if tc.incidents {
					require.Equal(t, http.StatusOK, get(tc.who, path), path)
				} else {
					require.Equal(t, http.StatusForbidden, get(tc.who, path), path)
				}
			}
			// pages offer only what the role allows
			operates, designs := tc.who == "olga", tc.who == "dora"
			if tc.reads {
				require.Equal(t, operates, strings.Contains(page(tc.who, "/instances/"+id), `id="btn-pause"`), "pause on the monitor")
			}
			require.Equal(t, designs, strings.Contains(page(tc.who, "/definitions/approval"), `data-action="disable"`), "disable a version")
			require.Equal(t, designs, strings.Contains(page(tc.who, "/designer"), `id="btn-deploy"`), "deploy in the designer")
			require.Equal(t, tc.incidents, strings.Contains(page(tc.who, "/definitions"), `href="/incidents"`), "the incidents link")

			sub := map[bool]string{true: "subscribed", false: "error"}
			require.Equal(t, sub[tc.reads], subscribe(tc.who, map[string]any{"instance": id}))
			require.Equal(t, sub[tc.reads2], subscribe(tc.who, map[string]any{"instance": id2}))
			require.Equal(t, sub[tc.definition], subscribe(tc.who, map[string]any{"definition": "approval"}))
		})
	}

	// Once alice completes the task she still reads the instance: she held it.
	task := f.waitTaskOf(id)
	_, err = f.eng.CompleteTask(context.Background(), task, "alice", map[string]any{"approved": false})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return get("alice", "/api/v1/instances/"+id) == http.StatusOK }, 10*time.Second, 10*time.Millisecond)

	// Messages and signals need a role: a user with none is refused.
	for _, path := range []string{"/api/v1/messages", "/api/v1/signals"} {
		req, err := http.NewRequest(http.MethodPost, "http://"+f.addr+path, strings.NewReader(`{"name":"x"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", bearerFor(t, "nobody"))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, http.StatusForbidden, resp.StatusCode, path)
	}
}

// bearerFor is an Authorization header for one of TestReadPermissions's
// users, with their groups; "nobody" has no role at all.
func bearerFor(t *testing.T, who string) string {
	groups := map[string][]any{"alice": {"managers"}, "wendy": {"warehouse"}, "rita": {"auditors"}, "olga": {"ops"}, "dora": {"design"}}
	claims := jwt.MapClaims{"sub": who, "groups": groups[who], "exp": time.Now().Add(time.Hour).Unix()}
	if who == "nobody" {
		claims["roles"] = []any{}
	}
	return "Bearer " + signToken(t, jwt.SigningMethodHS256, []byte(testJWTSecret), claims)
}

func decodeJSON(resp *http.Response, out any) error {
	return json.NewDecoder(resp.Body).Decode(out)
}

// waitTaskOf returns the id of the open task of instance id.
func (f *liveFixture) waitTaskOf(id string) string {
	f.t.Helper()
	var task string
	require.Eventually(f.t, func() bool {
		snap, err := f.eng.Instance(context.Background(), id)
		if err != nil || len(snap.Tasks) == 0 {
			return false
		}
		task = snap.Tasks[0].ID
		return true
	}, 10*time.Second, 5*time.Millisecond)
	return task
}
