package graph

import (
	"cmp"
	"strings"
)

// Message types of an edge (the Execution Engine's MessageType and
// TriggerMessageType): which outcome of its source the edge carries.
const (
	MessageComplete = "Complete"
	MessageFail     = "Fail"
	MessageAll      = "All"
	MessageProgress = "Progress"
)

var messageTypes = []string{MessageComplete, MessageFail, MessageAll, MessageProgress}

// edgeType reads an edge's type and messageType together: Complete is the
// default type (OnComplete, or a branch of a control node), Fail is OnFail,
// and All is taken on both (both reports it, typ being OnComplete). A type
// that contradicts the messageType, and Progress, are refused.
func (c *converter) edgeType(sc *scope, e edge) (typ string, both, ok bool) {
	at := cmp.Or(e.SourceNodeID, sc.owner)
	typ, ok = canonical(cmp.Or(e.Type, OnComplete), edgeTypes)
	if !ok {
		c.probs.Add(at, "%s: type %q is not an edge type: use one of %s", e, e.Type, strings.Join(edgeTypes, ", "))
		return "", false, false
	}
	if e.MessageType == "" {
		return typ, false, true
	}
	msg, known := canonical(e.MessageType, messageTypes)
	switch {
	case !known:
		c.probs.Add(at, "%s: messageType %q is not Complete, Fail or All: use one of them", e, e.MessageType)
	case msg == MessageProgress:
		c.probs.Add(at, "%s: messageType Progress does not route here: progress reports reach the monitor as element.progress events, not other nodes: remove the edge, or use Complete or Fail", e)
	case msg == MessageComplete && typ == OnFail:
		c.probs.Add(at, "%s: type OnFail and messageType Complete contradict: keep one", e)
	case msg == MessageFail && e.Type == "":
		return OnFail, false, true
	case msg == MessageFail && typ != OnFail:
		c.probs.Add(at, "%s: type %s and messageType Fail contradict: keep one", e, typ)
	case msg == MessageAll && typ != OnComplete:
		c.probs.Add(at, "%s: messageType All is taken on completion and on failure, type %s on neither or one: remove the type", e, typ)
	default:
		return typ, msg == MessageAll, true
	}
	return "", false, false
}

// ports checks an edge's sourcePort and targetPort and returns them as the
// flow's Attrs. Nodes here have one output, so ports do not route: two
// edges that leave the same node by different ports would both be taken,
// which is refused (the step that tells them apart is a condition).
func (c *converter) ports(sc *scope, e edge) map[string]string {
	var attrs map[string]string
	for _, p := range []struct {
		field string
		v     any
	}{{"sourcePort", e.SourcePort}, {"targetPort", e.TargetPort}} {
		if p.v == nil {
			continue
		}
		name, ok := p.v.(string)
		if !ok {
			c.probs.Add(cmp.Or(e.SourceNodeID, sc.owner), "%s: %s is %v, not text: name the port", e, p.field, p.v)
			continue
		}
		if attrs == nil {
			attrs = map[string]string{}
		}
		attrs[p.field] = name
	}
	return attrs
}

// portRouting refuses edges that leave a node by different source ports
// without conditions: ports do not route here, so all of them would be taken.
func (c *converter) portRouting(st *step) {
	ports := map[string]bool{}
	for _, e := range st.out[OnComplete] {
		if p, ok := e.attrs["sourcePort"]; ok && e.Condition == "" {
			ports[p] = true
		}
	}
	if len(ports) > 1 {
		c.probs.Add(st.g.NodeID, "edges leave by the ports %s, and ports do not route here, so every one would be taken: give each edge a condition on what tells them apart", strings.Join(sortedKeys(ports), ", "))
	}
}
