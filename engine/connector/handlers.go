package connector

import "github.com/workflowpp/wfpp/engine"

// Handlers returns a handler for each configured connector's job type, to
// register with engine.RegisterHandler. A connector that is not
// configured has none: its jobs wait for an external worker. With named
// HTTP connections, the http handler returned replaces the engine's own
// and keeps its behaviour for tasks that name no connection.
func Handlers(c Config) (map[string]engine.Handler, error) {
	c = c.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	hs := map[string]engine.Handler{}
	if c.Slack.Token != "" {
		hs[JobTypeSlack] = newSlack(c.Slack, c.Client)
	}
	if c.Monday.Token != "" {
		hs[JobTypeMonday] = newMonday(c.Monday, c.Client)
	}
	if c.Confluence.URL != "" {
		hs[JobTypeConfluence] = newConfluence(c.Confluence, c.Client)
	}
	if c.SMTP.Addr != "" {
		hs[JobTypeEmail] = newEmail(c.SMTP)
	}
	if len(c.HTTP) > 0 {
		hs[engine.JobTypeHTTP] = newHTTPConnections(c.HTTP, engine.NewHTTPHandler(c.Client))
	}
	return hs, nil
}
