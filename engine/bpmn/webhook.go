package bpmn

import (
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// A webhook wait (model.Webhook): wf:webhook="true" on a receive task, an
// intermediate message catch event or a message boundary event makes it wait
// for a POST to a URL of its own instead of a correlated message;
// wf:webhookFilter and wf:webhookMultiUse tune it and need it. Where a
// webhook may go, and that it names no message, model.Validate checks for
// every format.

// webhook reads wf:webhook.
func (x *extension) webhook(v string) {
	switch v = strings.TrimSpace(v); {
	case v == "false":
		return
	case v != "true":
		x.problem("wf:webhook %q is neither true nor false: write true to wait for a POST to the element's URL", v)
		return
	}
	x.hook()
}

// hook returns the node's webhook, made on first use.
func (x *extension) hook() *model.Webhook {
	if x.n.Webhook == nil {
		x.n.Webhook = &model.Webhook{}
	}
	return x.n.Webhook
}

// hookTuned returns the webhook an attribute tunes, or nil (reported) when
// the element is no webhook.
func (x *extension) hookTuned(attr string) *model.Webhook {
	if strings.TrimSpace(x.e.attr(nsWF, "webhook")) != "true" {
		x.problem("%s tunes a webhook wait, and the element is none: set wf:webhook=\"true\" or remove %s", attr, attr)
		return nil
	}
	return x.hook()
}

// webhookFilter reads wf:webhookFilter, an expression over the payload.
func (x *extension) webhookFilter(v string) {
	if w := x.hookTuned("wf:webhookFilter"); w != nil {
		w.Filter = strings.TrimSpace(v)
	}
}

// webhookMultiUse reads wf:webhookMultiUse.
func (x *extension) webhookMultiUse(v string) {
	w := x.hookTuned("wf:webhookMultiUse")
	if w == nil {
		return
	}
	switch strings.TrimSpace(v) {
	case "true":
		w.MultiUse = true
	case "false":
	default:
		x.problem("wf:webhookMultiUse %q is neither true nor false: write true to keep the URL open after a delivery", v)
	}
}
