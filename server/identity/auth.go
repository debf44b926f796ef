package identity

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/golang-jwt/jwt/v5"
)

// SessionCookie holds the signed session of a user logged in through /login.
const SessionCookie = "wfpp_session"

// Authenticator finds the user of a request: bearer token, session cookie,
// or the local profile's demo admin.
type Authenticator struct {
	cfg        Config
	jwtKey     []byte
	sessionKey []byte
	// dummyHash is compared against when a name is unknown, so a failed
	// login takes as long whether or not the user exists.
	dummyHash []byte
}

func NewAuthenticator(cfg Config) *Authenticator {
	a := &Authenticator{cfg: cfg, jwtKey: []byte(cfg.JWTSecret)}
	switch {
	case cfg.SessionSecret != "":
		a.sessionKey = []byte(cfg.SessionSecret)
	case cfg.JWTSecret != "":
		m := hmac.New(sha256.New, []byte(cfg.JWTSecret))
		m.Write([]byte("wfpp session cookie"))
		a.sessionKey = m.Sum(nil)
	default:
		a.sessionKey = make([]byte, 32)
		_, _ = rand.Read(a.sessionKey)
	}
	for _, u := range cfg.Users {
		a.dummyHash = []byte(u.Password) // same cost as real ones
		break
	}
	return a
}

// Error is a refusal with its HTTP status and the API's error code; the
// server writes it as its error envelope.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

func unauthorized(msg string) *Error {
	return &Error{Status: http.StatusUnauthorized, Code: "unauthorized", Message: msg}
}

func forbidden(msg string) *Error {
	return &Error{Status: http.StatusForbidden, Code: "forbidden", Message: msg}
}

// authenticate sets the request's user. A bad bearer token is 401; a bad
// session cookie is ignored (the request is anonymous or local).
func (a *Authenticator) Authenticate(c *fiber.Ctx) error {
	if h := c.Get(fiber.HeaderAuthorization); h != "" {
		scheme, token, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, "Bearer") || token == "" {
			return unauthorized("Authorization header must be \"Bearer <token>\"")
		}
		u, err := a.bearer(strings.TrimSpace(token))
		if err != nil {
			c.Set(fiber.HeaderWWWAuthenticate, `Bearer error="invalid_token"`)
			return unauthorized("bearer token refused: " + err.Error())
		}
		c.Locals(LocalsKey, u)
		return c.Next()
	}
	if v := c.Cookies(SessionCookie); v != "" {
		if u, ok := a.session(v, time.Now()); ok {
			c.Locals(LocalsKey, u)
			return c.Next()
		}
	}
	if a.cfg.Local {
		c.Locals(LocalsKey, localDemo("local"))
	}
	return c.Next()
}

func localDemo(via string) *User {
	return &User{Name: LocalUserName, Groups: slices.Clone(localUserGroups), Roles: []string{RoleAdmin}, Local: true, Via: via}
}

// RequireUser refuses anonymous requests with 401.
func RequireUser(c *fiber.Ctx) error {
	if CurrentUser(c) == nil {
		c.Set(fiber.HeaderWWWAuthenticate, "Bearer")
		return unauthorized("authentication required: send \"Authorization: Bearer <JWT>\" or log in at /login")
	}
	return c.Next()
}

// RequireRole lets a request through when its user has one of roles (admins
// always); anonymous requests get 401, others 403. Deploy: designer; pause,
// cancel, modify: operator; tasks: worker (then check User.MayWork).
func RequireRole(roles ...string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		u := CurrentUser(c)
		if u == nil {
			return RequireUser(c)
		}
		for _, r := range roles {
			if u.Has(r) {
				return c.Next()
			}
		}
		return forbidden(fmt.Sprintf("user %q lacks the role for this: needs one of %s", u.Name, strings.Join(roles, ", ")))
	}
}

// tokenClaims are the claims of a bearer token.
type tokenClaims struct {
	jwt.RegisteredClaims
	Groups []string `json:"groups"`
	Roles  []string `json:"roles,omitempty"`
}

var errNoJWTSecret = errors.New("the server has no JWT secret configured")

// bearer verifies an HS256 token. Without a roles claim the user gets the
// roles configured for sub, or worker.
func (a *Authenticator) bearer(token string) (*User, error) {
	if len(a.jwtKey) == 0 {
		return nil, errNoJWTSecret
	}
	var claims tokenClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return a.jwtKey, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithLeeway(30*time.Second))
	if err != nil {
		return nil, err
	}
	if claims.Subject == "" {
		return nil, errors.New("token has no sub claim")
	}
	for _, r := range claims.Roles {
		if !slices.Contains(knownRoles, r) {
			return nil, fmt.Errorf("token has unknown role %q", r)
		}
	}
	u := &User{Name: claims.Subject, Groups: claims.Groups, Roles: claims.Roles, Via: "bearer"}
	if u.Roles == nil {
		if cu, ok := a.cfg.user(u.Name); ok {
			u.Roles = cu.Roles
		} else {
			u.Roles = []string{RoleWorker}
		}
	}
	if u.Groups == nil {
		u.Groups = []string{}
	}
	return u, nil
}

// A session cookie is base64url(name).expiry-unix.base64url(hmac); groups
// and roles come from the configuration on every request, so a removed user
// is logged out at once.
func (a *Authenticator) sign(name string, exp time.Time) string {
	payload := base64.RawURLEncoding.EncodeToString([]byte(name)) + "." + strconv.FormatInt(exp.Unix(), 10)
	return payload + "." + base64.RawURLEncoding.EncodeToString(a.mac(payload))
}

func (a *Authenticator) mac(payload string) []byte {
	m := hmac.New(sha256.New, a.sessionKey)
	m.Write([]byte(payload))
	return m.Sum(nil)
}

func (a *Authenticator) session(v string, now time.Time) (*User, bool) {
	i := strings.LastIndexByte(v, '.')
	if i < 0 {
		return nil, false
	}
	payload, sig := v[:i], v[i+1:]
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(mac, a.mac(payload)) {
		return nil, false
	}
	enc, expS, ok := strings.Cut(payload, ".")
	if !ok {
		return nil, false
	}
	exp, err := strconv.ParseInt(expS, 10, 64)
	if err != nil || now.Unix() >= exp {
		return nil, false
	}
	name, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return nil, false
	}
	if cu, ok := a.cfg.user(string(name)); ok {
		return &User{Name: cu.Name, Groups: cu.Groups, Roles: cu.Roles, Via: "session"}, true
	}
	if a.cfg.Local && string(name) == LocalUserName {
		return localDemo("session"), true
	}
	return nil, false
}
