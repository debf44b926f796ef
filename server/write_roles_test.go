package server_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/server"
	"github.com/workflowpp/wfpp/server/identity"
)

// writeRoles is who may use each state-changing route (admins always): ""
// means any signed-in user. A route missing here fails the test, so a new
// one is given its rule on purpose.
var writeRoles = map[string][]string{
	"POST /login":  {""},
	"POST /logout": {""},

	"POST /api/v1/definitions":                             {identity.RoleDesigner},
	"POST /api/v1/definitions/validate":                    {""},
	"POST /api/v1/scripts/check":                           {""},
	"POST /api/v1/definitions/:key/versions/:v/enable":     {identity.RoleDesigner},
	"POST /api/v1/definitions/:key/versions/:v/disable":    {identity.RoleDesigner},
	"PATCH /api/v1/definitions/:key/versions/:v":           {identity.RoleDesigner},
	"POST /api/v1/definitions/:key/rollback":               {identity.RoleDesigner},
	"POST /api/v1/forms":                                   {identity.RoleDesigner},
	"POST /api/v1/instances":                               {""},
	"POST /api/v1/instances/:id/pause":                     {identity.RoleOperator},
	"POST /api/v1/instances/:id/resume":                    {identity.RoleOperator},
	"POST /api/v1/instances/:id/cancel":                    {identity.RoleOperator},
	"POST /api/v1/instances/:id/variables":                 {identity.RoleOperator},
	"POST /api/v1/instances/:id/modify":                    {identity.RoleOperator},
	"POST /api/v1/instances/:id/trigger":                   {identity.RoleWorker, identity.RoleOperator},
	"POST /api/v1/instances/:id/adhoc/:elementId/activate": {identity.RoleWorker, identity.RoleOperator},
	"POST /api/v1/filters":                                 {""},
	"DELETE /api/v1/filters/:name":                         {""},
	"POST /api/v1/tasks/:id/claim":                         {identity.RoleWorker},
	"POST /api/v1/tasks/:id/complete":                      {identity.RoleWorker},
	"POST /api/v1/tasks/:id/release":                       {identity.RoleWorker, identity.RoleOperator},
	"POST /api/v1/tasks/:id/delegate":                      {identity.RoleWorker, identity.RoleOperator},
	"POST /api/v1/tasks/:id/comments":                      {identity.RoleWorker, identity.RoleOperator},
	"POST /api/v1/messages":                                {identity.RoleWorker, identity.RoleOperator},
	"POST /api/v1/conditions":                              {identity.RoleWorker, identity.RoleOperator},
	"POST /api/v1/signals":                                 {identity.RoleWorker, identity.RoleOperator},
	"POST /api/v1/jobs/fetch-and-lock":                     {identity.RoleWorker, identity.RoleOperator},
	"POST /api/v1/jobs/:key/complete":                      {identity.RoleWorker, identity.RoleOperator},
	"POST /api/v1/jobs/:key/fail":                          {identity.RoleWorker, identity.RoleOperator},
	"POST /api/v1/jobs/:key/extend-lock":                   {identity.RoleWorker, identity.RoleOperator},
	"POST /api/v1/jobs/:key/progress":                      {identity.RoleWorker, identity.RoleOperator},
	"POST /api/v1/incidents/retry":                         {identity.RoleOperator},
	"POST /api/v1/incidents/:id/resolve":                   {identity.RoleOperator},
	"POST /api/v1/dead-letters/replay":                     {identity.RoleOperator},
	"POST /api/v1/dead-letters/discard":                    {identity.RoleOperator},
	"POST /api/v1/dead-letters/purge":                      {identity.RoleOperator},
	"POST /api/v1/dead-letters/:id/replay":                 {identity.RoleOperator},
	"POST /api/v1/dead-letters/:id/discard":                {identity.RoleOperator},
	"DELETE /api/v1/dead-letters/:id":                      {identity.RoleOperator},
	"POST /api/v1/circuits/:key/reset":                     {identity.RoleOperator},
	"POST /api/v1/cache/invalidate":                        {identity.RoleOperator},
	"DELETE /api/v1/cache/:key":                            {identity.RoleOperator},
	// Public: the token in the URL is the credential (TestWebhookHTTP posts without a session).
	"POST /api/v1/hooks/:token":    {""},
	"POST /api/v1/schedules":       {identity.RoleDesigner, identity.RoleOperator},
	"PATCH /api/v1/schedules/:id":  {identity.RoleDesigner, identity.RoleOperator},
	"DELETE /api/v1/schedules/:id": {identity.RoleDesigner, identity.RoleOperator},

	"POST /ui/filters":                                 {""},
	"DELETE /ui/filters/:name":                         {""},
	"POST /ui/definitions/:id/enable":                  {identity.RoleDesigner},
	"POST /ui/definitions/:id/disable":                 {identity.RoleDesigner},
	"POST /ui/tasks/:id/claim":                         {identity.RoleWorker},
	"POST /ui/tasks/:id/complete":                      {identity.RoleWorker},
	"POST /ui/tasks/:id/release":                       {identity.RoleWorker, identity.RoleOperator},
	"POST /ui/tasks/:id/delegate":                      {identity.RoleWorker, identity.RoleOperator},
	"POST /ui/tasks/:id/comments":                      {identity.RoleWorker, identity.RoleOperator},
	"POST /ui/instances/:id/incidents/:incident/retry": {identity.RoleOperator},
	"POST /ui/deadletters/replay":                      {identity.RoleOperator},
	"POST /ui/deadletters/discard":                     {identity.RoleOperator},
	"POST /ui/deadletters/purge":                       {identity.RoleOperator},
	"POST /ui/deadletters/:id/replay":                  {identity.RoleOperator},
	"POST /ui/deadletters/:id/discard":                 {identity.RoleOperator},
	"DELETE /ui/deadletters/:id":                       {identity.RoleOperator},
}

// TestWriteRolesEveryRoute sends every state-changing route the server
// registers, as each role, and checks the role rule: 403 for a role that
// may not, anything else for one that may (the made-up ids then give 404
// or 400). With the reads of TestReadPermissions, each role meets each
// route.
func TestWriteRolesEveryRoute(t *testing.T) {
	t.Parallel()
	f := setupLive(t, func(c *server.Config) { c.Identity = identity.Config{JWTSecret: testJWTSecret} })
	roles := []string{identity.RoleWorker, identity.RoleOperator, identity.RoleDesigner, identity.RoleAdmin, "none"}
	param := regexp.MustCompile(`:[a-z]+`)
	seen := map[string]bool{}
	for _, r := range f.srv.App().GetRoutes(true) {
		if r.Method != http.MethodPost && r.Method != http.MethodDelete && r.Method != http.MethodPut && r.Method != http.MethodPatch {
			continue
		}
		route := r.Method + " " + r.Path
		if seen[route] {
			continue
		}
		seen[route] = true
		allowed, ok := writeRoles[route]
		require.True(t, ok, "%s has no role rule in writeRoles: add one", route)
		for _, role := range roles {
			claims := jwt.MapClaims{"sub": "u-" + role, "exp": time.Now().Add(time.Hour).Unix(), "roles": []any{}}
			if role != "none" {
				claims["roles"] = []any{role}
			}
			req := httptest.NewRequest(r.Method, param.ReplaceAllString(r.Path, "x1"), strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+signToken(t, jwt.SigningMethodHS256, []byte(testJWTSecret), claims))
			resp, err := f.srv.App().Test(req, -1)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			may := role == identity.RoleAdmin || slices.Contains(allowed, "") || slices.Contains(allowed, role)
			if may {
				require.NotEqual(t, http.StatusForbidden, resp.StatusCode, "%s as %s", route, role)
			} else {
				require.Equal(t, http.StatusForbidden, resp.StatusCode, "%s as %s", route, role)
			}
		}
	}
	for route := range writeRoles {
		require.True(t, seen[route], "writeRoles names %s, which the server does not register", route)
	}
}
