package connector

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// The environment variables LoadConfig reads.
const (
	envSecretsFile     = "WFPP_SECRETS_FILE"
	envSlackURL        = "WFPP_SLACK_URL"
	envSlackToken      = "WFPP_SLACK_TOKEN"
	envMondayURL       = "WFPP_MONDAY_URL"
	envMondayToken     = "WFPP_MONDAY_TOKEN"
	envConfluenceURL   = "WFPP_CONFLUENCE_URL"
	envConfluenceUser  = "WFPP_CONFLUENCE_USER"
	envConfluenceToken = "WFPP_CONFLUENCE_TOKEN"
	envSMTPAddr        = "WFPP_SMTP_ADDR"
	envSMTPUser        = "WFPP_SMTP_USER"
	envSMTPPassword    = "WFPP_SMTP_PASSWORD"
	envSMTPFrom        = "WFPP_SMTP_FROM"
	envHTTPConnections = "WFPP_HTTP_CONNECTIONS"
)

// EnvVar is an environment variable LoadConfig reads.
type EnvVar struct {
	Name, Doc string
	set       func(c *Config, v string) error
}

// Env lists every environment variable LoadConfig reads, in the order a
// help text shows them. Each overrides the secrets file's setting.
var Env = []EnvVar{
	{envSecretsFile, "JSON or YAML file with connector settings and credentials (connectors: {slack: {token, url}, ...}); not world-readable", nil},
	{envSlackToken, "Slack bot token: enables slack.post-message", func(c *Config, v string) error { c.Slack.Token = Secret(v); return nil }},
	{envSlackURL, "Slack Web API base (default " + SlackURLDefault + ")", func(c *Config, v string) error { c.Slack.URL = v; return nil }},
	{envMondayToken, "Monday API token: enables monday.get-items", func(c *Config, v string) error { c.Monday.Token = Secret(v); return nil }},
	{envMondayURL, "Monday API base (default " + MondayURLDefault + "; /v2 is appended)", func(c *Config, v string) error { c.Monday.URL = v; return nil }},
	{envConfluenceURL, "Confluence site, e.g. https://example.atlassian.net: with user and token enables confluence.create-page", func(c *Config, v string) error { c.Confluence.URL = v; return nil }},
	{envConfluenceUser, "Confluence account (e-mail) for basic auth", func(c *Config, v string) error { c.Confluence.User = v; return nil }},
	{envConfluenceToken, "Confluence API token", func(c *Config, v string) error { c.Confluence.Token = Secret(v); return nil }},
	{envSMTPAddr, "SMTP server host:port: with WFPP_SMTP_FROM enables email.send (STARTTLS when offered)", func(c *Config, v string) error { c.SMTP.Addr = v; return nil }},
	{envSMTPUser, "SMTP user for AUTH PLAIN (optional)", func(c *Config, v string) error { c.SMTP.User = v; return nil }},
	{envSMTPPassword, "SMTP password", func(c *Config, v string) error { c.SMTP.Password = Secret(v); return nil }},
	{envSMTPFrom, "sender address of email.send", func(c *Config, v string) error { c.SMTP.From = v; return nil }},
	{envHTTPConnections, `named connections of the http job type, JSON: {"crm": {"url", "headers", "token" | "user", "password"}}`, setHTTPConnections},
}

// LoadConfig reads the connectors' settings: the secrets file that
// WFPP_SECRETS_FILE names, if any, then the variables of Env on top.
func LoadConfig(getenv func(string) string) (Config, error) {
	var c Config
	if path := getenv(envSecretsFile); path != "" {
		var err error
		if c, err = readSecretsFile(path); err != nil {
			return Config{}, err
		}
	}
	for _, v := range Env {
		if raw := strings.TrimSpace(getenv(v.Name)); raw != "" && v.set != nil {
			if err := v.set(&c, raw); err != nil {
				return Config{}, err
			}
		}
	}
	c = c.WithDefaults()
	return c, c.validate()
}

// setHTTPConnections adds the connections of WFPP_HTTP_CONNECTIONS, over
// those of the same name in the file.
func setHTTPConnections(c *Config, v string) error {
	var conns map[string]Connection
	dec := json.NewDecoder(strings.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&conns); err != nil {
		// The decoder's message never quotes string values, so no credential shows.
		return fmt.Errorf(`%s is not a JSON object of connections {"name": {"url", "headers", "token" | "user", "password"}}: %w`, envHTTPConnections, err)
	}
	if c.HTTP == nil {
		c.HTTP = map[string]Connection{}
	}
	maps.Copy(c.HTTP, conns)
	return nil
}

// secretsFile is the layout of the secrets file; other top-level keys are
// refused, since they are usually typos.
type secretsFile struct {
	Connectors Config `yaml:"connectors"`
}

// readSecretsFile reads the JSON or YAML secrets file at path. A file
// that every user may read is refused: it holds credentials.
func readSecretsFile(path string) (Config, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", envSecretsFile, err)
	}
	if perm := info.Mode().Perm(); perm&0o004 != 0 {
		return Config{}, fmt.Errorf("%s %s is readable by every user (mode %#o): it holds credentials, chmod 600 it", envSecretsFile, path, perm)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", envSecretsFile, err)
	}
	// YAML is a superset of JSON: one decoder reads both.
	var f secretsFile
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return Config{}, fmt.Errorf("%s %s is empty: write connectors: {slack: {token: ...}, ...}", envSecretsFile, path)
		}
		return Config{}, fmt.Errorf("%s %s: %w", envSecretsFile, path, yamlError(err))
	}
	return f.Connectors, nil
}

// yamlQuoted is how the YAML decoder quotes (the start of) a value in its messages.
var yamlQuoted = regexp.MustCompile("`[^`]*`")

// yamlError drops the values a decoding error quotes: one may be a credential.
func yamlError(err error) error {
	return errors.New(yamlQuoted.ReplaceAllString(err.Error(), "(value hidden)"))
}
