package model

// webhook checks the webhook wait of n, whatever format set it. A webhook
// catch names no message: the URL is what it waits for, so a message beside
// it is refused rather than left to mean one or the other.
func (v *validator) webhook(n *Node) {
	w := n.Webhook
	if w == nil {
		return
	}
	catch := n.Kind == KindIntermediateCatchEvent || n.Kind == KindBoundaryEvent
	if n.Kind != KindReceiveTask && (!catch || n.Trigger != TriggerMessage) {
		v.add(n.ID, "%s %q cannot wait at a webhook (wf:webhook): only receive tasks and intermediate or boundary message catch events do; remove it", n.Kind, n.ID)
		return
	}
	if n.Message != nil && n.Message.Name != "" {
		v.add(n.ID, "%q waits at a webhook (wf:webhook) and for the message %q: keep one (remove the message to wait for the URL)", n.ID, n.Message.Name)
	}
	if w.Filter != "" && v.c.Expression != nil {
		if err := v.c.Expression(w.Filter); err != nil {
			v.add(n.ID, "webhook filter (wf:webhookFilter) %q: %v", w.Filter, err)
		}
	}
}
