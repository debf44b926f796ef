package connectortest_test

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/connector"
	"github.com/workflowpp/wfpp/engine/connector/connectortest"
	"github.com/workflowpp/wfpp/engine/runner"
)

// seedBoard is the Monday board the seeds' examples read.
var seedBoard = connectortest.Board{ID: "42", Columns: []string{"Item ID", "Status"}, Items: []connectortest.Item{
	{ID: "101", Name: "Apollo", Values: map[string]string{"Item ID": "101", "Status": "Approved"}},
	{ID: "102", Name: "Borealis", Values: map[string]string{"Item ID": "102", "Status": "In Progress"}},
	{ID: "103", Name: "Cygnus", Values: map[string]string{"Item ID": "103", "Status": "In Progress"}},
}}

// runSeed runs a file of testdata/seeds, as printed in its spec, through
// the real connectors against the stubs.
func runSeed(t *testing.T, file string, trigger map[string]any) (*runner.Result, *connectortest.Slack, *connectortest.Confluence) {
	t.Helper()
	src, err := os.ReadFile("../../../testdata/seeds/" + file)
	require.NoError(t, err)
	slack, confluence := connectortest.NewSlack(t), connectortest.NewConfluence(t)
	monday := connectortest.NewMonday(t, seedBoard)
	hs, err := connector.Handlers(connectortest.Config(slack, monday, confluence))
	require.NoError(t, err)
	res, err := runner.Run(t.Context(), src, runner.Options{Handlers: hs, Strict: true, Timeout: 30 * time.Second, Variables: trigger})
	require.NoError(t, err)
	return res, slack, confluence
}

func texts(msgs []map[string]any, key string) []any {
	var out []any
	for _, m := range msgs {
		out = append(out, m[key])
	}
	return out
}

// TestSeedLinear runs DataWorkflows §15.1 as printed: the items in
// progress counted into a Slack message through {{ }} templates.
func TestSeedLinear(t *testing.T) {
	t.Parallel()
	res, slack, _ := runSeed(t, "dataworkflows-15.1.json", map[string]any{"boardId": "42", "channelId": "C0123"})
	require.Equal(t, "completed", res.Status, "incidents: %v", res.Incidents)
	require.Equal(t, []any{"Found 2 items in progress."}, texts(slack.Messages(), "text"))
	require.Equal(t, "C0123", slack.Messages()[0]["channel"])
}

// TestSeedBranching runs DataWorkflows §15.2 as printed along its three
// routes: approved (a Confluence page), not approved (a Slack message) and
// the failure route of onFailure (a Slack message naming the node).
func TestSeedBranching(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, board, item string
		page, message     string // "" for none
	}{
		{"approved", "42", "101", "Apollo - Project Brief", ""},
		{"not approved", "42", "102", "", "Project 'Borealis' is not 'Approved'."},
		{"failure route", "7", "101", "", "Onboarding failed at get-project-item."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, slack, confluence := runSeed(t, "dataworkflows-15.2.json", map[string]any{"boardId": tc.board, "itemId": tc.item, "channelId": "C0123"})
			require.Equal(t, "completed", res.Status, "incidents: %v", res.Incidents)
			if tc.page == "" {
				require.Empty(t, confluence.Pages())
			} else {
				require.Equal(t, []any{tc.page}, texts(confluence.Pages(), "title"))
			}
			if tc.message == "" {
				require.Empty(t, slack.Messages())
			} else {
				require.Equal(t, []any{tc.message}, texts(slack.Messages(), "text"))
			}
		})
	}
}
