package connectortest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/workflowpp/wfpp/engine/connector"
	"github.com/workflowpp/wfpp/engine/connector/connectortest"
	"github.com/workflowpp/wfpp/engine/runner"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// onboarding is DataWorkflows §15.2 (Branching with Failure Route) in
// the JSON DAG dialect the engine reads today: ${...} templates over
// variables, a failure edge for the failure route.
const onboarding = `{
  "id": "onboard-new-project", "displayName": "Onboard New Project", "startNode": "get-project-item",
  "nodes": [
    {"id": "get-project-item", "actionType": "monday.get-items",
     "parameters": {"boardId": "${boardId}", "filter": {"rules": [{"column": "Item ID", "operator": "eq", "value": "${itemId}"}]}},
     "policies": {"retry": {"maxAttempts": 1}},
     "edges": [
       {"targetNode": "create-confluence-page", "when": "success", "condition": "items[0].Status === 'Approved'"},
       {"targetNode": "notify-not-approved", "when": "success", "condition": "items[0].Status !== 'Approved'"},
       {"targetNode": "notify-error", "when": "failure"}
     ]},
    {"id": "create-confluence-page", "actionType": "confluence.create-page",
     "parameters": {"space": "PROJECTS", "title": "${items[0].Name} - Project Brief"}},
    {"id": "notify-not-approved", "actionType": "slack.post-message",
     "parameters": {"channelId": "${channelId}", "message": "Project '${items[0].Name}' is not 'Approved'."}},
    {"id": "notify-error", "actionType": "slack.post-message",
     "parameters": {"channelId": "${channelId}", "message": "Onboarding failed at ${failedNodeId}."}}
  ]
}`

// TestOnboarding runs the onboarding workflow through the real connectors
// against the stubs, along each of its three routes.
func TestOnboarding(t *testing.T) {
	t.Parallel()
	board := connectortest.Board{ID: "42", Columns: []string{"Item ID", "Status"}, Items: []connectortest.Item{
		{ID: "101", Name: "Apollo", Values: map[string]string{"Item ID": "101", "Status": "Approved"}},
		{ID: "102", Name: "Borealis", Values: map[string]string{"Item ID": "102", "Status": "Draft"}},
	}}
	for _, tc := range []struct {
		name, board string
		item        float64
		page        string // the page title created; "" for none
		message     string // the Slack message posted; "" for none
	}{
		{"approved: a page", "42", 101, "Apollo - Project Brief", ""},
		{"not approved: a message", "42", 102, "", "Project 'Borealis' is not 'Approved'."},
		{"an unknown board: the failure route", "7", 101, "", "Onboarding failed at get-project-item."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			slack, confluence := connectortest.NewSlack(t), connectortest.NewConfluence(t)
			monday := connectortest.NewMonday(t, board)
			monday.PageSize = 1 // the item is found on any page
			hs, err := connector.Handlers(connectortest.Config(slack, monday, confluence))
			require.NoError(t, err)
			res, err := runner.Run(t.Context(), []byte(onboarding), runner.Options{
				Handlers: hs, Strict: true, Timeout: 20 * time.Second,
				Variables: map[string]any{"boardId": tc.board, "itemId": tc.item, "channelId": "C0123"},
			})
			require.NoError(t, err)
			require.Equal(t, "completed", res.Status, "incidents: %v", res.Incidents)

			var titles, messages []any
			for _, p := range confluence.Pages() {
				titles = append(titles, p["title"])
			}
			for _, m := range slack.Messages() {
				messages = append(messages, m["text"])
				require.Equal(t, "C0123", m["channel"])
			}
			if tc.page != "" {
				require.Equal(t, []any{tc.page}, titles)
				require.Equal(t, map[string]any{"key": "PROJECTS"}, confluence.Pages()[0]["space"])
			} else {
				require.Empty(t, titles)
			}
			if tc.message != "" {
				require.Equal(t, []any{tc.message}, messages)
			} else {
				require.Empty(t, messages)
			}
		})
	}
}
