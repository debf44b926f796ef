package connector

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"sort"
)

// Default API addresses of the services that have one.
const (
	SlackURLDefault  = "https://slack.com/api"
	MondayURLDefault = "https://api.monday.com"
)

// Config holds the settings of every connector. A connector whose settings
// are all empty is not configured: its job type gets no handler, and its
// jobs wait for an external worker.
type Config struct {
	Slack      SlackConfig           `json:"slack" yaml:"slack"`
	Monday     MondayConfig          `json:"monday" yaml:"monday"`
	Confluence ConfluenceConfig      `json:"confluence" yaml:"confluence"`
	SMTP       SMTPConfig            `json:"smtp" yaml:"smtp"`
	HTTP       map[string]Connection `json:"http" yaml:"http"` // named connections of the http job type

	// Client makes the HTTP calls; a client of its own when nil.
	Client *http.Client `json:"-" yaml:"-"`
}

// SlackConfig configures slack.post-message (Slack Web API).
type SlackConfig struct {
	URL   string `json:"url" yaml:"url"`     // Web API base; SlackURLDefault when empty
	Token Secret `json:"token" yaml:"token"` // bot token (xoxb-...)
}

// MondayConfig configures monday.get-items (Monday GraphQL API).
type MondayConfig struct {
	URL   string `json:"url" yaml:"url"`     // API base, without /v2; MondayURLDefault when empty
	Token Secret `json:"token" yaml:"token"` // API token
}

// ConfluenceConfig configures confluence.create-page (Confluence REST API).
type ConfluenceConfig struct {
	URL   string `json:"url" yaml:"url"`     // site, e.g. https://example.atlassian.net (a trailing /wiki is dropped)
	User  string `json:"user" yaml:"user"`   // account e-mail
	Token Secret `json:"token" yaml:"token"` // API token
}

// SMTPConfig configures email.send.
type SMTPConfig struct {
	Addr     string `json:"addr" yaml:"addr"` // host:port
	User     string `json:"user" yaml:"user"` // none: no AUTH
	Password Secret `json:"password" yaml:"password"`
	From     string `json:"from" yaml:"from"` // sender address
}

// Connection is a named HTTP connection an http task selects with its
// connection parameter: the task's url is relative to URL, and the
// connection adds its headers and credentials (a bearer token, or a user
// and password for basic auth).
type Connection struct {
	URL      string            `json:"url" yaml:"url"`
	Headers  map[string]Secret `json:"headers" yaml:"headers"` // may hold API keys: redacted like credentials
	Token    Secret            `json:"token" yaml:"token"`
	User     string            `json:"user" yaml:"user"`
	Password Secret            `json:"password" yaml:"password"`
}

// WithDefaults fills in the default API addresses of configured connectors.
func (c Config) WithDefaults() Config {
	if c.Slack.Token != "" && c.Slack.URL == "" {
		c.Slack.URL = SlackURLDefault
	}
	if c.Monday.Token != "" && c.Monday.URL == "" {
		c.Monday.URL = MondayURLDefault
	}
	if c.Client == nil {
		c.Client = &http.Client{}
	}
	return c
}

// validate names every setting that is missing or wrong, with the
// environment variable and the secrets-file key that set it.
func (c Config) validate() error {
	var errs []error
	if c.Slack.URL != "" {
		errs = append(errs, need("slack", "token", envSlackToken, string(c.Slack.Token)), checkURL("slack", envSlackURL, c.Slack.URL))
	}
	if c.Monday.URL != "" {
		errs = append(errs, need("monday", "token", envMondayToken, string(c.Monday.Token)), checkURL("monday", envMondayURL, c.Monday.URL))
	}
	if cf := c.Confluence; cf != (ConfluenceConfig{}) {
		errs = append(errs,
			need("confluence", "url", envConfluenceURL, cf.URL), need("confluence", "user", envConfluenceUser, cf.User),
			need("confluence", "token", envConfluenceToken, string(cf.Token)))
		if cf.URL != "" {
			errs = append(errs, checkURL("confluence", envConfluenceURL, cf.URL))
		}
	}
	if s := c.SMTP; s != (SMTPConfig{}) {
		errs = append(errs, need("smtp", "addr", envSMTPAddr, s.Addr), need("smtp", "from", envSMTPFrom, s.From))
		if _, _, err := net.SplitHostPort(s.Addr); s.Addr != "" && err != nil {
			errs = append(errs, fmt.Errorf("connectors.smtp.addr (%s) %q: write host:port, e.g. smtp.example.com:587", envSMTPAddr, s.Addr))
		}
		if _, err := mail.ParseAddress(s.From); s.From != "" && err != nil {
			errs = append(errs, fmt.Errorf("connectors.smtp.from (%s) %q is not an e-mail address: %w", envSMTPFrom, s.From, err))
		}
		if (s.User == "") != (s.Password == "") {
			errs = append(errs, fmt.Errorf("connectors.smtp: set both user and password (%s, %s), or neither for no AUTH", envSMTPUser, envSMTPPassword))
		}
	}
	names := make([]string, 0, len(c.HTTP))
	for name := range c.HTTP {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		errs = append(errs, c.HTTP[name].validate(name))
	}
	return errors.Join(errs...)
}

func (cn Connection) validate(name string) error {
	where := "http." + name
	if cn.URL == "" {
		return fmt.Errorf("connectors.%s.url (%s) is required: the base URL task urls are relative to", where, envHTTPConnections)
	}
	errs := []error{checkURL(where, envHTTPConnections, cn.URL)}
	if cn.Token != "" && (cn.User != "" || cn.Password != "") {
		errs = append(errs, fmt.Errorf("connectors.%s: set a token or a user and password, not both", where))
	}
	if (cn.User == "") != (cn.Password == "") {
		errs = append(errs, fmt.Errorf("connectors.%s: basic auth needs both user and password", where))
	}
	return errors.Join(errs...)
}

// need reports a required setting of a configured connector that is empty.
func need(connector, key, env, value string) error {
	if value != "" {
		return nil
	}
	return fmt.Errorf("connectors.%s.%s (%s) is required once %s is configured", connector, key, env, connector)
}

// checkURL accepts an absolute http(s) URL without credentials in it:
// credentials in a URL end up in error messages and logs.
func checkURL(where, env, raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil: // its message quotes the URL, which may hold a credential
		return fmt.Errorf("connectors.%s.url (%s) is not a valid URL", where, env)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return fmt.Errorf("connectors.%s.url (%s) %q: write an absolute http or https URL", where, env, raw)
	case u.User != nil:
		return fmt.Errorf("connectors.%s.url (%s): put credentials in the token, user and password settings, not in the URL", where, env)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("connectors.%s.url (%s) %q: write a base URL without query or fragment", where, env, raw)
	}
	return nil
}
