package identity

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
	"gopkg.in/yaml.v3"
)

// Roles a user may have. Admins may do everything.
const (
	RoleAdmin    = "admin"
	RoleDesigner = "designer" // deploys definitions
	RoleOperator = "operator" // pauses, resumes, cancels and modifies instances
	RoleWorker   = "worker"   // works on tasks
)

var knownRoles = []string{RoleAdmin, RoleDesigner, RoleOperator, RoleWorker}

// The user every request acts as in the local profile when it brings no
// credentials.
const (
	LocalUserName = "demo"
)

var localUserGroups = []string{"managers", "demo"}

const SessionTTLDefault = 12 * time.Hour

// Environment variables Load reads.
const (
	EnvIdentityFile  = "WFPP_IDENTITY_FILE"  // YAML or JSON file holding an Config
	EnvJWTSecret     = "WFPP_JWT_SECRET"     // HS256 secret for bearer tokens
	EnvSessionSecret = "WFPP_SESSION_SECRET" // HMAC secret for session cookies
	EnvUsers         = "WFPP_USERS"          // name:bcrypt-hash:group,group:role,role entries separated by ';' or spaces
	EnvIdentityLocal = "WFPP_IDENTITY_LOCAL" // "true" keeps the local profile on next to configured users
)

// Config says who may use the server. The zero value is the local
// profile: requests without credentials act as the demo admin.
type Config struct {
	Users []UserConfig `json:"users" yaml:"users"`
	// JWTSecret verifies bearer tokens (HS256). Empty: bearer tokens are refused.
	JWTSecret string `json:"jwtSecret" yaml:"jwtSecret"`
	// SessionSecret signs session cookies. Empty: derived from JWTSecret, or
	// random per process (sessions then end with the process).
	SessionSecret string        `json:"sessionSecret" yaml:"sessionSecret"`
	SessionTTL    time.Duration `json:"sessionTTL" yaml:"sessionTTL"`
	// Local lets requests without credentials act as the demo admin. It is
	// on whenever no users and no JWT secret are configured.
	Local bool `json:"local" yaml:"local"`
}

// UserConfig is one configured user. Password is a bcrypt hash
// (htpasswd -nbBC 10 "" secret | cut -d: -f2, or bcrypt.GenerateFromPassword).
type UserConfig struct {
	Name     string   `json:"name" yaml:"name"`
	Password string   `json:"password" yaml:"password"`
	Groups   []string `json:"groups" yaml:"groups"`
	Roles    []string `json:"roles" yaml:"roles"`
}

// WithDefaults returns c with the local profile switched on when nothing
// else is configured, and the session lifetime set.
func (c Config) WithDefaults() Config {
	if len(c.Users) == 0 && c.JWTSecret == "" {
		c.Local = true
	}
	if c.SessionTTL == 0 {
		c.SessionTTL = SessionTTLDefault
	}
	return c
}

func (c Config) Validate() error {
	var errs []error
	seen := map[string]bool{}
	for i, u := range c.Users {
		switch {
		case u.Name == "":
			errs = append(errs, fmt.Errorf("identity config: user %d has no name", i))
		case seen[u.Name]:
			errs = append(errs, fmt.Errorf("identity config: user %q is configured twice", u.Name))
		}
		seen[u.Name] = true
		if _, err := bcrypt.Cost([]byte(u.Password)); err != nil {
			errs = append(errs, fmt.Errorf("identity config: password of user %q is not a bcrypt hash (%w): store bcrypt hashes, never plain passwords", u.Name, err))
		}
		for _, r := range u.Roles {
			if !slices.Contains(knownRoles, r) {
				errs = append(errs, fmt.Errorf("identity config: user %q has unknown role %q: use %s", u.Name, r, strings.Join(knownRoles, ", ")))
			}
		}
	}
	if c.JWTSecret != "" && len(c.JWTSecret) < 32 {
		errs = append(errs, errors.New("identity config: JWTSecret is shorter than 32 bytes: use a long random secret"))
	}
	if c.SessionSecret != "" && len(c.SessionSecret) < 32 {
		errs = append(errs, errors.New("identity config: SessionSecret is shorter than 32 bytes: use a long random secret"))
	}
	if c.SessionTTL < 0 {
		errs = append(errs, errors.New("identity config: SessionTTL must not be negative"))
	}
	return errors.Join(errs...)
}

// Describe says in one line how requests are authenticated, for the startup log.
func (c Config) Describe() string {
	c = c.WithDefaults()
	var parts []string
	if c.Local {
		parts = append(parts, fmt.Sprintf("LOCAL PROFILE: requests without credentials act as user %q (role admin, groups %s); do not expose this server",
			LocalUserName, strings.Join(localUserGroups, ",")))
	}
	if n := len(c.Users); n > 0 {
		parts = append(parts, fmt.Sprintf("%d configured users log in with a session cookie", n))
	}
	if c.JWTSecret != "" {
		parts = append(parts, "bearer tokens (JWT HS256) accepted")
	} else {
		parts = append(parts, "bearer tokens refused (no JWT secret)")
	}
	return "identity: " + strings.Join(parts, "; ")
}

func (c Config) user(name string) (UserConfig, bool) {
	for _, u := range c.Users {
		if u.Name == name {
			return u, true
		}
	}
	return UserConfig{}, false
}

// Load reads the identity configuration from the file named by
// WFPP_IDENTITY_FILE, or else from WFPP_USERS, WFPP_JWT_SECRET and
// WFPP_SESSION_SECRET. With none of them set it returns the local profile.
// getenv is os.Getenv outside tests.
func Load(getenv func(string) string) (Config, error) {
	var c Config
	if path := getenv(EnvIdentityFile); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return c, fmt.Errorf("reading identity file: %w", err)
		}
		// YAML is a superset of JSON: one decoder reads both.
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		dec.KnownFields(true)
		if err := dec.Decode(&c); err != nil {
			return c, fmt.Errorf("parsing identity file %s: %w", path, err)
		}
	}
	if s := getenv(EnvJWTSecret); s != "" {
		c.JWTSecret = s
	}
	if s := getenv(EnvSessionSecret); s != "" {
		c.SessionSecret = s
	}
	if s := getenv(EnvUsers); s != "" {
		users, err := parseUsers(s)
		if err != nil {
			return c, err
		}
		c.Users = append(c.Users, users...)
	}
	if getenv(EnvIdentityLocal) == "true" {
		c.Local = true
	}
	c = c.WithDefaults()
	return c, c.Validate()
}

// parseUsers reads name:hash:groups:roles entries; bcrypt hashes hold no ':' or ';'.
func parseUsers(s string) ([]UserConfig, error) {
	var users []UserConfig
	for _, entry := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ' ' || r == '\n' || r == '\t' }) {
		f := strings.Split(entry, ":")
		if len(f) < 2 || len(f) > 4 {
			return nil, fmt.Errorf("%s entry %q: write name:bcrypt-hash[:group,group[:role,role]]", EnvUsers, entry)
		}
		u := UserConfig{Name: f[0], Password: f[1]}
		if len(f) > 2 {
			u.Groups = splitList(f[2])
		}
		if len(f) > 3 {
			u.Roles = splitList(f[3])
		}
		users = append(users, u)
	}
	return users, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
