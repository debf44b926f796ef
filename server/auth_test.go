package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	"github.com/workflowpp/wfpp/server"
	"github.com/workflowpp/wfpp/server/identity"
)

const testJWTSecret = "0123456789abcdef0123456789abcdef-test"

func hash(t *testing.T, password string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	require.NoError(t, err)
	return string(h)
}

func identityConfig(t *testing.T) identity.Config {
	return identity.Config{
		JWTSecret: testJWTSecret,
		Users: []identity.UserConfig{
			{Name: "alice", Password: hash(t, "alice-pw"), Groups: []string{"managers"}, Roles: []string{identity.RoleWorker}},
			{Name: "olga", Password: hash(t, "olga-pw"), Groups: []string{"ops"}, Roles: []string{identity.RoleOperator}},
			{Name: "dora", Password: hash(t, "dora-pw"), Groups: []string{"design"}, Roles: []string{identity.RoleDesigner}},
		},
	}
}

func signToken(t *testing.T, method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, claims).SignedString(key)
	require.NoError(t, err)
	return s
}

func bearer(t *testing.T, sub string, groups []string, ttl time.Duration) http.Header {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+signToken(t, jwt.SigningMethodHS256, []byte(testJWTSecret),
		jwt.MapClaims{"sub": sub, "groups": groups, "exp": time.Now().Add(ttl).Unix()}))
	return h
}

// authFixture sends requests through app.Test with a cookie jar of one.
type authFixture struct {
	t       *testing.T
	srv     *server.Server
	cookies map[string]string
}

func setupAuth(t *testing.T, id identity.Config) *authFixture {
	f := setup(t, func(c *server.Config) { c.Identity = id })
	return &authFixture{t: t, srv: f.srv, cookies: map[string]string{}}
}

func (f *authFixture) do(method, path string, header http.Header, body string) (*http.Response, []byte) {
	f.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Origin", "http://"+req.Host) // as a browser on the server's own pages
	for k, v := range header {
		req.Header[k] = v
	}
	for k, v := range f.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	resp, err := f.srv.App().Test(req, -1)
	require.NoError(f.t, err)
	data, err := io.ReadAll(resp.Body)
	require.NoError(f.t, err)
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(f.cookies, c.Name)
		} else {
			f.cookies[c.Name] = c.Value
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp, data
}

func (f *authFixture) me(header http.Header) (int, identity.User) {
	f.t.Helper()
	resp, data := f.do(http.MethodGet, "/api/v1/me", header, "")
	var u identity.User
	if resp.StatusCode == http.StatusOK {
		require.NoError(f.t, json.Unmarshal(data, &u), "%s", data)
	} else {
		requireEnvelope(f.t, resp, resp.StatusCode, "unauthorized")
	}
	return resp.StatusCode, u
}

func TestLocalProfile(t *testing.T) {
	t.Parallel()
	f := setupAuth(t, identity.Config{})
	status, u := f.me(nil)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "demo", u.Name)
	require.True(t, u.Local)
	require.True(t, u.Has(identity.RoleAdmin))
	require.Equal(t, []string{"managers", "demo"}, u.Groups)
	require.Contains(t, identity.Config{}.Describe(), "LOCAL PROFILE")

	// API writes without credentials need no CSRF token, unless the browser
	// says they come from another site.
	resp, _ := f.do(http.MethodPost, "/api/v1/messages", http.Header{"Content-Type": {"application/json"}}, `{"name":"x"}`)
	require.NotEqual(t, http.StatusForbidden, resp.StatusCode)
	resp, _ = f.do(http.MethodPost, "/api/v1/messages", http.Header{"Content-Type": {"application/json"}, "Sec-Fetch-Site": {"cross-site"}}, `{"name":"x"}`)
	requireEnvelope(t, resp, http.StatusForbidden, "forbidden")

	// The demo admin logs in on the page without a password.
	resp, _ = f.do(http.MethodPost, "/login", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, "name=&password=")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.NotEmpty(t, f.cookies[identity.SessionCookie])
}

func TestBearerToken(t *testing.T) {
	t.Parallel()
	f := setupAuth(t, identityConfig(t))
	status, u := f.me(bearer(t, "carol", []string{"sales"}, time.Hour))
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "carol", u.Name)
	require.Equal(t, []string{"sales"}, u.Groups)
	require.Equal(t, []string{identity.RoleWorker}, u.Roles, "unknown sub without roles claim: worker")
	require.False(t, u.Local)

	status, u = f.me(bearer(t, "olga", nil, time.Hour))
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, []string{identity.RoleOperator}, u.Roles, "configured roles of sub")

	withRoles := signToken(t, jwt.SigningMethodHS256, []byte(testJWTSecret), jwt.MapClaims{"sub": "dan", "groups": []string{}, "roles": []string{"designer"}})
	status, u = f.me(http.Header{"Authorization": {"Bearer " + withRoles}})
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, []string{identity.RoleDesigner}, u.Roles)

	for name, h := range map[string]http.Header{
		"expired":      bearer(t, "alice", nil, -time.Hour),
		"bad secret":   {"Authorization": {"Bearer " + signToken(t, jwt.SigningMethodHS256, []byte("another-secret-another-secret-xx"), jwt.MapClaims{"sub": "alice"})}},
		"HS512":        {"Authorization": {"Bearer " + signToken(t, jwt.SigningMethodHS512, []byte(testJWTSecret), jwt.MapClaims{"sub": "alice"})}},
		"no sub":       {"Authorization": {"Bearer " + signToken(t, jwt.SigningMethodHS256, []byte(testJWTSecret), jwt.MapClaims{"groups": []string{"x"}})}},
		"unknown role": {"Authorization": {"Bearer " + signToken(t, jwt.SigningMethodHS256, []byte(testJWTSecret), jwt.MapClaims{"sub": "x", "roles": []string{"root"}})}},
		"garbage":      {"Authorization": {"Bearer abc.def.ghi"}},
		"basic":        {"Authorization": {"Basic YWxpY2U6eA=="}},
		"nothing":      nil,
	} {
		status, _ := f.me(h)
		require.Equal(t, http.StatusUnauthorized, status, name)
	}
}

func TestSessionLoginLogout(t *testing.T) {
	t.Parallel()
	f := setupAuth(t, identityConfig(t))
	form := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}

	resp, _ := f.do(http.MethodPost, "/login", form, "name=alice&password=wrong&next=/inbox")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/login?error=invalid&next=%2Finbox", resp.Header.Get("Location"))
	require.Empty(t, f.cookies[identity.SessionCookie])
	resp, _ = f.do(http.MethodPost, "/login", http.Header{"Content-Type": {"application/json"}}, `{"name":"nobody","password":"x"}`)
	requireEnvelope(t, resp, http.StatusUnauthorized, "unauthorized")

	resp, _ = f.do(http.MethodPost, "/login", form, "name=alice&password=alice-pw&next="+url.QueryEscape("//evil.example"))
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/", resp.Header.Get("Location"), "next stays on this site")
	var session *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == identity.SessionCookie {
			session = c
		}
	}
	require.NotNil(t, session)
	require.True(t, session.HttpOnly)
	require.Equal(t, http.SameSiteLaxMode, session.SameSite)
	require.NotEmpty(t, f.cookies[identity.CSRFCookie])

	status, u := f.me(nil)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "alice", u.Name)
	require.Equal(t, "session", u.Via)

	// A tampered cookie is no session.
	good := f.cookies[identity.SessionCookie]
	f.cookies[identity.SessionCookie] = strings.Replace(good, good[:4], "Ym9i", 1) // "bob"
	status, _ = f.me(nil)
	require.Equal(t, http.StatusUnauthorized, status)
	f.cookies[identity.SessionCookie] = good

	// Logout is a cookie-authenticated write: it needs the CSRF token.
	resp, _ = f.do(http.MethodPost, "/logout", nil, "")
	requireEnvelope(t, resp, http.StatusForbidden, "forbidden")
	resp, _ = f.do(http.MethodPost, "/logout", http.Header{identity.CSRFHeader: {f.cookies[identity.CSRFCookie]}}, "")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	status, _ = f.me(nil)
	require.Equal(t, http.StatusUnauthorized, status)
}

func TestLoginForm(t *testing.T) {
	t.Parallel()
	f := setupAuth(t, identityConfig(t))
	resp, body := f.do(http.MethodGet, "/login?next=/inbox&error=invalid", nil, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/html")
	require.Contains(t, string(body), `action="/login"`)
	require.Contains(t, string(body), `value="/inbox"`)
	require.Contains(t, string(body), "wrong")
}

func TestCSRF(t *testing.T) {
	t.Parallel()
	f := setupAuth(t, identityConfig(t))
	resp, _ := f.do(http.MethodPost, "/login", http.Header{"Content-Type": {"application/json"}}, `{"name":"alice","password":"alice-pw"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	token := f.cookies[identity.CSRFCookie]
	require.NotEmpty(t, token)
	jsonCT := http.Header{"Content-Type": {"application/json"}}
	body := `{"name":"nothing-waits"}`

	resp, _ = f.do(http.MethodPost, "/api/v1/messages", jsonCT, body)
	requireEnvelope(t, resp, http.StatusForbidden, "forbidden")
	resp, _ = f.do(http.MethodPost, "/api/v1/messages", http.Header{"Content-Type": {"application/json"}, identity.CSRFHeader: {"wrong"}}, body)
	requireEnvelope(t, resp, http.StatusForbidden, "forbidden")
	resp, _ = f.do(http.MethodPost, "/api/v1/messages", http.Header{"Content-Type": {"application/json"}, identity.CSRFHeader: {token}}, body)
	require.NotEqual(t, http.StatusForbidden, resp.StatusCode)
	// The form field does as well as the header.
	resp, _ = f.do(http.MethodPost, "/logout", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, identity.CSRFField+"="+token)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)

	// Bearer requests are exempt.
	resp, _ = f.do(http.MethodPost, "/api/v1/messages", mergeHeader(jsonCT, bearer(t, "alice", nil, time.Hour)), body)
	require.NotEqual(t, http.StatusForbidden, resp.StatusCode)
}

func mergeHeader(hs ...http.Header) http.Header {
	out := http.Header{}
	for _, h := range hs {
		for k, v := range h {
			out[k] = v
		}
	}
	return out
}

func TestLoadIdentity(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	c, err := identity.Load(env(nil))
	require.NoError(t, err)
	require.True(t, c.Local)

	h := hash(t, "pw")
	c, err = identity.Load(env(map[string]string{
		identity.EnvUsers:     "ann:" + h + ":managers,ops:operator;ben:" + h,
		identity.EnvJWTSecret: testJWTSecret,
	}))
	require.NoError(t, err)
	require.False(t, c.Local)
	require.Equal(t, []identity.UserConfig{
		{Name: "ann", Password: h, Groups: []string{"managers", "ops"}, Roles: []string{"operator"}},
		{Name: "ben", Password: h},
	}, c.Users)
	require.Contains(t, c.Describe(), "2 configured users")
	require.NotContains(t, c.Describe(), "LOCAL")

	path := filepath.Join(t.TempDir(), "identity.yaml")
	require.NoError(t, os.WriteFile(path, []byte("jwtSecret: "+testJWTSecret+"\nusers:\n  - name: cy\n    password: '"+h+"'\n    roles: [designer]\n"), 0o600))
	c, err = identity.Load(env(map[string]string{identity.EnvIdentityFile: path}))
	require.NoError(t, err)
	require.Equal(t, "cy", c.Users[0].Name)

	for name, vars := range map[string]map[string]string{
		"plain password": {identity.EnvUsers: "ann:secret"},
		"unknown role":   {identity.EnvUsers: "ann:" + h + "::root"},
		"short secret":   {identity.EnvJWTSecret: "short"},
		"missing file":   {identity.EnvIdentityFile: filepath.Join(t.TempDir(), "none.yaml")},
	} {
		_, err := identity.Load(env(vars))
		require.Error(t, err, name)
	}
	_, err = server.New(server.Config{Engine: nil, Identity: identity.Config{Users: []identity.UserConfig{{Name: "x", Password: "plain"}}}})
	require.ErrorContains(t, err, "bcrypt")
}

// TestSameSiteWrites: in every profile, a write without a bearer token must
// come from this site; a body a cross-site form can send needs a browser's
// word (Origin or Sec-Fetch-Site) that it does.
func TestSameSiteWrites(t *testing.T) {
	t.Parallel()
	local := setupAuth(t, identity.Config{})
	users := setupAuth(t, identityConfig(t))
	const body = `{"name":"nothing-waits"}`
	for _, tc := range []struct {
		name   string
		header http.Header
		want   int // 0: anything but 403
	}{
		{"json from a tool", http.Header{"Content-Type": {"application/json"}}, 0},
		{"same-origin fetch", http.Header{"Content-Type": {"application/json"}, "Sec-Fetch-Site": {"same-origin"}}, 0},
		{"origin is this server", http.Header{"Content-Type": {"application/json"}, "Origin": {"http://example.com"}}, 0},
		{"cross-site fetch", http.Header{"Content-Type": {"application/json"}, "Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
		{"same-site fetch", http.Header{"Content-Type": {"application/json"}, "Sec-Fetch-Site": {"same-site"}}, http.StatusForbidden},
		{"foreign origin", http.Header{"Content-Type": {"text/plain"}, "Origin": {"http://evil.example"}}, http.StatusForbidden},
		{"null origin", http.Header{"Content-Type": {"application/json"}, "Origin": {"null"}}, http.StatusForbidden},
		{"text/plain without browser headers", http.Header{"Content-Type": {"text/plain;charset=UTF-8"}}, http.StatusForbidden},
		{"form without browser headers", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, http.StatusForbidden},
		{"multipart without browser headers", http.Header{"Content-Type": {"multipart/form-data; boundary=x"}}, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.header.Clone()
			if _, ok := h["Origin"]; !ok {
				h["Origin"] = nil // the fixture's browser default is what this case leaves out
			}
			body := body
			if strings.HasPrefix(h.Get("Content-Type"), "multipart/") {
				body = "--x\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nalice\r\n--x--\r\n"
			}
			resp, _ := local.do(http.MethodPost, "/api/v1/messages", h, body)
			if tc.want == 0 {
				require.NotEqual(t, http.StatusForbidden, resp.StatusCode)
			} else {
				requireEnvelope(t, resp, tc.want, "forbidden")
			}
			// With users configured, a session still needs the same site
			// (and its CSRF token); anonymous writes are 401 or 403 either way.
			resp, _ = users.do(http.MethodPost, "/login", h, body)
			if tc.want != 0 {
				requireEnvelope(t, resp, tc.want, "forbidden")
			}
		})
	}
}
