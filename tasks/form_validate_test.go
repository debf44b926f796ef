package tasks_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/tasks"
)

const schema = `{"type":"default","components":[
	{"type":"textfield","key":"name","label":"Name","validate":{"required":true,"minLength":2,"maxLength":5,"pattern":"[a-z]+"}},
	{"type":"number","key":"amount","validate":{"min":1,"max":10}},
	{"type":"checkbox","key":"agree","validate":{"required":true}},
	{"type":"select","key":"kind","values":[{"label":"A","value":"a"},{"label":"B","value":"b"}]},
	{"type":"checklist","key":"tags","values":[{"label":"X","value":"x"}]},
	{"type":"datetime","key":"when"},
	{"type":"textfield","key":"locked","readonly":true,"validate":{"required":true}},
	{"type":"group","components":[{"type":"textfield","key":"customer.city","validate":{"required":true}}]}
]}`

func TestValidateValues(t *testing.T) {
	t.Parallel()
	ok := map[string]any{
		"name": "ada", "amount": 5.0, "agree": true, "kind": "a", "tags": []any{"x"}, "when": "2026-12-31",
		"customer": map[string]any{"city": "Oslo"},
	}
	require.NoError(t, tasks.ValidateValues(json.RawMessage(schema), ok))
	require.NoError(t, tasks.ValidateValues(nil, map[string]any{"anything": 1}), "no form, nothing to check")

	for name, tc := range map[string]struct {
		change map[string]any
		key    string
	}{
		"required missing": {map[string]any{"name": ""}, "name"},
		"too short":        {map[string]any{"name": "a"}, "name"},
		"too long":         {map[string]any{"name": "abcdef"}, "name"},
		"pattern":          {map[string]any{"name": "AB"}, "name"},
		"not a number":     {map[string]any{"amount": "5"}, "amount"},
		"below min":        {map[string]any{"amount": 0.0}, "amount"},
		"above max":        {map[string]any{"amount": 11.0}, "amount"},
		"unchecked":        {map[string]any{"agree": false}, "agree"},
		"not listed":       {map[string]any{"kind": "c"}, "kind"},
		"list item":        {map[string]any{"tags": []any{"y"}}, "tags"},
		"not a date":       {map[string]any{"when": "tomorrow"}, "when"},
		"nested path":      {map[string]any{"customer": map[string]any{}}, "customer.city"},
	} {
		vars := map[string]any{}
		for k, v := range ok {
			vars[k] = v
		}
		for k, v := range tc.change {
			vars[k] = v
		}
		err := tasks.ValidateValues(json.RawMessage(schema), vars)
		var fe *tasks.FormError
		require.ErrorAs(t, err, &fe, name)
		require.Len(t, fe.Fields, 1, name)
		require.Equal(t, tc.key, fe.Fields[0].Key, name)
	}
}
