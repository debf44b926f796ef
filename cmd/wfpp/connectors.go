package main

import (
	"fmt"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/connector"
)

// connectorHandlers reads the connectors' settings (connector.Env: the
// secrets file and the environment) and returns the handlers of the
// connectors configured, for wfpp serve and wfpp run alike.
func connectorHandlers(getenv func(string) string) (map[string]engine.Handler, error) {
	cfg, err := connector.LoadConfig(getenv)
	if err != nil {
		return nil, fmt.Errorf("connectors: %w", err)
	}
	return connector.Handlers(cfg)
}
