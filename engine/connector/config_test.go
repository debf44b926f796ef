package connector_test

import (
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/connector"
)

// env is a getenv over a map.
func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// secretsFile writes a secrets file with mode perm.
func secretsFile(t *testing.T, content string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secrets.yaml")
	require.NoError(t, os.WriteFile(path, []byte(content), perm))
	require.NoError(t, os.Chmod(path, perm)) // past the umask
	return path
}

// TestLoadConfig: the secrets file and the environment on top of it
// configure the connectors; only configured ones get a handler.
func TestLoadConfig(t *testing.T) {
	t.Parallel()
	path := secretsFile(t, `
connectors:
  slack: {token: xoxb-from-file}
  confluence: {url: "https://example.atlassian.net", user: bot@example.com, token: file-token}
  http:
    crm: {url: "https://crm.example.com/api", headers: {X-Tenant: acme}, token: crm-token}
`, 0o600)
	c, err := connector.LoadConfig(env(map[string]string{
		"WFPP_SECRETS_FILE": path, "WFPP_SLACK_TOKEN": "xoxb-from-env",
		"WFPP_SMTP_ADDR": "smtp.example.com:587", "WFPP_SMTP_FROM": "wfpp@example.com",
		"WFPP_HTTP_CONNECTIONS": `{"erp": {"url": "https://erp.example.com", "user": "u", "password": "p"}}`,
	}))
	require.NoError(t, err)
	require.Equal(t, connector.Secret("xoxb-from-env"), c.Slack.Token, "the environment wins over the file")
	require.Equal(t, connector.SlackURLDefault, c.Slack.URL)
	require.Equal(t, "bot@example.com", c.Confluence.User)
	require.Equal(t, "smtp.example.com:587", c.SMTP.Addr)
	require.Equal(t, []string{"crm", "erp"}, slices.Sorted(maps.Keys(c.HTTP)))

	hs, err := connector.Handlers(c)
	require.NoError(t, err)
	require.Equal(t, []string{"confluence.create-page", "email.send", "http", "slack.post-message"}, slices.Sorted(maps.Keys(hs)),
		"monday has no token: no handler")

	hs, err = connector.Handlers(connector.Config{})
	require.NoError(t, err)
	require.Empty(t, hs, "nothing configured, nothing registered")
}

// TestLoadConfigRefuses: each mistake is refused with a message that
// names the setting, and never quotes a credential.
func TestLoadConfigRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  map[string]string
		file string // content of WFPP_SECRETS_FILE, mode 600
		want string
	}{
		{
			"a Slack URL without a token",
			map[string]string{"WFPP_SLACK_URL": "https://slack.example.com/api"},
			"",
			"connectors.slack.token (WFPP_SLACK_TOKEN) is required once slack is configured",
		},
		{
			"Confluence without its token",
			map[string]string{"WFPP_CONFLUENCE_URL": "https://x.atlassian.net", "WFPP_CONFLUENCE_USER": "me"},
			"",
			"connectors.confluence.token (WFPP_CONFLUENCE_TOKEN) is required",
		},
		{
			"SMTP without a sender",
			map[string]string{"WFPP_SMTP_ADDR": "smtp.example.com:25"},
			"",
			"connectors.smtp.from (WFPP_SMTP_FROM) is required",
		},
		{
			"SMTP without a port",
			map[string]string{"WFPP_SMTP_ADDR": "smtp.example.com", "WFPP_SMTP_FROM": "a@b.c"},
			"",
			"write host:port",
		},
		{
			"an SMTP user without a password",
			map[string]string{"WFPP_SMTP_ADDR": "h:25", "WFPP_SMTP_FROM": "a@b.c", "WFPP_SMTP_USER": "u"},
			"",
			"set both user and password",
		},
		{
			"credentials in a URL",
			map[string]string{"WFPP_MONDAY_TOKEN": "t", "WFPP_MONDAY_URL": "https://me:hunter22@api.monday.com"},
			"",
			"put credentials in the token, user and password settings, not in the URL",
		},
		{
			"a relative URL",
			map[string]string{"WFPP_HTTP_CONNECTIONS": `{"crm": {"url": "/api"}}`},
			"",
			"connectors.http.crm.url (WFPP_HTTP_CONNECTIONS) \"/api\": write an absolute http or https URL",
		},
		{
			"malformed connections",
			map[string]string{"WFPP_HTTP_CONNECTIONS": `{"crm": {"url": "https://x", "tokn": "hunter22"}}`},
			"",
			`WFPP_HTTP_CONNECTIONS is not a JSON object of connections`,
		},
		{"an unknown key in the file", nil, "connectors:\n  slack: {tokn: hunter22}\n", "field tokn not found"},
		{"a value of the wrong shape", nil, "connectors:\n  slack: hunter22\n", "(value hidden)"},
		{"an unknown connector", nil, "connectors:\n  jira: {token: hunter22}\n", "field jira not found"},
		{"an empty file", nil, "\n", "is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := maps.Clone(tc.env)
			if e == nil {
				e = map[string]string{}
			}
			if tc.file != "" {
				e["WFPP_SECRETS_FILE"] = secretsFile(t, tc.file, 0o600)
			}
			_, err := connector.LoadConfig(env(e))
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), "hunter22")
		})
	}

	path := secretsFile(t, "connectors:\n  slack: {token: xoxb-1}\n", 0o644)
	_, err := connector.LoadConfig(env(map[string]string{"WFPP_SECRETS_FILE": path}))
	require.ErrorContains(t, err, "is readable by every user (mode 0644): it holds credentials, chmod 600 it")
	_, err = connector.LoadConfig(env(map[string]string{"WFPP_SECRETS_FILE": filepath.Join(t.TempDir(), "missing.yaml")}))
	require.ErrorContains(t, err, "WFPP_SECRETS_FILE")
}

// TestSecretPrintsRedacted: a config printed, logged or marshalled shows
// no credential.
func TestSecretPrintsRedacted(t *testing.T) {
	t.Parallel()
	c := connector.Config{Slack: connector.SlackConfig{Token: "xoxb-hunter22"}, SMTP: connector.SMTPConfig{Password: "hunter22"}}
	var log strings.Builder
	slog.New(slog.NewJSONHandler(&log, nil)).Info("config", "token", c.Slack.Token, "password", c.SMTP.Password)
	for _, shown := range []string{fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), log.String()} {
		require.NotContains(t, shown, "hunter22")
		require.Contains(t, shown, "[redacted]")
	}
	require.Equal(t, "xoxb-hunter22", c.Slack.Token.Reveal())
}

// TestUnconfiguredTypeWaits: a job type whose connector is not configured
// has no handler, so its task waits for an external worker.
func TestUnconfiguredTypeWaits(t *testing.T) {
	t.Parallel()
	hs := slackHandlers(t, "http://127.0.0.1:1") // Slack only
	res := runTask(t, hs, connector.JobTypeMonday, map[string]any{"boardId": "42"})
	require.Equal(t, "waiting", res.Status)
	require.NotContains(t, res.Visited, "failed")
	require.Empty(t, res.Incidents)
}
