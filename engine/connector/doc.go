// Package connector holds the built-in handlers of the action types the
// seeds name: slack.post-message, monday.get-items, confluence.create-page,
// email.send, and named connections for http. Each is an engine.Handler,
// configured per connector; wfpp serve and wfpp run register those that
// are configured (Handlers). A job type without a handler waits for an
// external worker, as before.
//
// # Settings
//
// LoadConfig reads a secrets file, then the environment on top of it:
//
//	WFPP_SECRETS_FILE      JSON or YAML file, below; refused if every user may read it
//	WFPP_SLACK_TOKEN       Slack bot token: enables slack.post-message
//	WFPP_SLACK_URL         Web API base (default https://slack.com/api)
//	WFPP_MONDAY_TOKEN      Monday API token: enables monday.get-items
//	WFPP_MONDAY_URL        API base (default https://api.monday.com; /v2 is appended)
//	WFPP_CONFLUENCE_URL    site, e.g. https://example.atlassian.net  } all three enable
//	WFPP_CONFLUENCE_USER   account e-mail                            } confluence.create-page
//	WFPP_CONFLUENCE_TOKEN  API token                                 }
//	WFPP_SMTP_ADDR         host:port  } both enable email.send
//	WFPP_SMTP_FROM         sender     }
//	WFPP_SMTP_USER         AUTH PLAIN user (optional, with the password)
//	WFPP_SMTP_PASSWORD     its password
//	WFPP_HTTP_CONNECTIONS  JSON {"crm": {"url", "headers", "token" | "user", "password"}}
//
// The secrets file (mode 600 or 640; YAML, or the same as JSON):
//
//	connectors:
//	  slack:      {token: xoxb-..., url: https://slack.com/api}
//	  monday:     {token: ..., url: https://api.monday.com}
//	  confluence: {url: https://example.atlassian.net, user: me@example.com, token: ...}
//	  smtp:       {addr: smtp.example.com:587, user: ..., password: ..., from: wfpp@example.com}
//	  http:
//	    crm: {url: https://crm.example.com/api, headers: {X-Tenant: acme}, token: ...}
//	    erp: {url: https://erp.example.com, user: ..., password: ...}
//
// Unknown keys, a malformed file, a missing setting of a connector that is
// partly configured, and credentials inside a URL are errors that name the
// setting and its variable.
//
// # Rules
//
//   - Credentials are sent only to the service they are for. They are
//     never logged (Secret prints as "[redacted]"), never in variables,
//     events or history, and never in error messages: a failure's message
//     is scrubbed of every credential, should the service echo one.
//   - Parameters come from the task's rendered parameters (JSON DAG,
//     graphs), or else from its variables (BPMN input mappings).
//   - Failures are outcomes the engine understands. A network error or a
//     timeout (the job's context) is retried; an HTTP 429 or 500–504, or
//     the statuses of the task's RetryPolicy.RetryOnStatus, is retried after
//     the answer's Retry-After when it gives one; any other 4xx or 5xx fails
//     for good. Status failures are coded HTTP_<status>; a service's own
//     failure reports are coded SLACK_<ERROR>, MONDAY_<code> and
//     SMTP_<reply>, so wf:retryOn and wf:doNotRetryOn can name them.
//   - Bad parameters fail the task for good, with a message naming the parameter.
//
// Each connector's type says what its parameters and result are.
package connector
