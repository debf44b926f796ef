package engine

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// A webhook catch (model.Webhook on a receive task, an intermediate message
// catch or a message boundary event) waits for a POST to a URL of its own,
// /api/v1/hooks/{token}. The token is the only credential, so it is 192
// random bits from crypto/rand, stored with the subscription (a restart keeps
// the URL working) and filed in the message index under a name of its own
// (hookSub), like signals. It is revoked with the subscription: when the
// catch moves on, its activity ends, or a boundary timer interrupts it.
//
// A delivery's payload is a JSON object; its fields become variables as a
// message's do. Single-use URLs close after one delivery; a multi-use URL
// stays open while its element waits, which matters on a non-interrupting
// boundary event (each POST fires it once more). A receive task or catch
// event moves on at its first delivery, so its URL closes then either way.

// WebhookWait is an open webhook subscription: its token and when it opened.
type WebhookWait struct {
	Token    string    `json:"token" bson:"token"`
	MultiUse bool      `json:"multiUse,omitempty" bson:"multi_use,omitempty"`
	Created  time.Time `json:"createdAt" bson:"created_at"`
}

// WebhookRejectedError is a POST whose payload failed the element's filter
// (or made it fail); it changed nothing.
type WebhookRejectedError struct {
	ElementID string
	Filter    string
	Reason    string // why the filter failed to evaluate; "" when it was false
}

func (e *WebhookRejectedError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("the payload does not pass the webhook filter `%s` of %q: %s", e.Filter, e.ElementID, e.Reason)
	}
	return fmt.Sprintf("the payload does not pass the webhook filter `%s` of %q: send one it accepts", e.Filter, e.ElementID)
}

// hookSub is a webhook subscription as the message index keeps it.
func hookSub(token, inst string, sub uint64) messageSub {
	return messageSub{name: "\x00webhook", key: token, inst: inst, sub: sub}
}

// newHookToken returns an unguessable URL-safe token.
//
// The token starts with the partition of its instance and a dot, so that a
// replica that does not hold that partition sends the POST to the one that
// does (NotOwnerError); the random rest is what makes it unguessable.
func newHookToken(partition int) (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making a webhook token: %w", err)
	}
	return strconv.Itoa(partition) + "." + base64.RawURLEncoding.EncodeToString(b), nil
}

// hookOwner returns a NotOwnerError when token names a partition another
// replica holds; nil when this replica holds it, or without Cluster.
func (e *Engine) hookOwner(ctx context.Context, token string) error {
	if e.cluster == nil {
		return nil
	}
	prefix, _, ok := strings.Cut(token, ".")
	p, err := strconv.Atoi(prefix)
	if !ok || err != nil || p < 0 || p >= len(e.partitions) || e.partitions[p].epoch.Load() != 0 {
		return nil
	}
	return e.notOwner(ctx, p)
}

// DeliverWebhook delivers payload to the catch waiting at the webhook of
// token and returns the instance after it. An unknown token, or one whose
// wait ended, is ErrNotFound; a payload the filter refuses is a
// *WebhookRejectedError.
func (e *Engine) DeliverWebhook(ctx context.Context, token string, payload map[string]any) (*Snapshot, error) {
	if err := e.checkVariables(payload); err != nil {
		return nil, err
	}
	subs := e.messages.candidates(hookSub(token, "", 0).name, token)
	if len(subs) == 0 { // a token is one subscription's: there is one or none
		if err := e.hookOwner(ctx, token); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("no element waits at this webhook: its wait ended or it never existed: %w", ErrNotFound)
	}
	r, err := e.call(ctx, command{kind: cmdWebhook, inst: subs[0].inst, sub: subs[0].sub, vars: payload})
	if err != nil {
		return nil, err
	}
	return r.snap, nil
}

// openWebhook opens the webhook subscription of n for token t.
func (x *instance) openWebhook(t *token, n *model.Node) error {
	tok, err := newHookToken(x.head.Partition)
	if err != nil {
		return err
	}
	sub := x.addSubscription(&Subscription{Token: t.id, ElementID: n.ID, Webhook: &WebhookWait{Token: tok, MultiUse: n.Webhook.MultiUse, Created: x.now}})
	x.emit(EventWebhookOpened, n, t, map[string]any{"multiUse": n.Webhook.MultiUse})
	x.p.effects.subscribe = append(x.p.effects.subscribe, hookSub(tok, x.id, sub.ID))
	return nil
}

// webhookArrived moves the catch whose webhook a POST reached, when the
// payload passes its filter.
func (x *instance) webhookArrived(c command) error {
	s := x.subscription(c.sub)
	if s == nil || s.Webhook == nil {
		return fmt.Errorf("no element of instance %s waits at this webhook any more: %w", x.id, ErrNotFound)
	}
	t := x.token(s.Token)
	if t == nil {
		return fmt.Errorf("no token waits at this webhook in instance %s: %w", x.id, ErrNotFound)
	}
	n := x.proc.Node(s.ElementID)
	if err := x.webhookFilter(t, n, c.vars); err != nil {
		return err
	}
	x.emit(EventWebhookDelivered, n, t, map[string]any{"variables": keys(c.vars)})
	if !n.Webhook.MultiUse {
		x.removeSubscription(s) // a non-interrupting boundary would keep it open
	}
	x.trigger(t, s, n, c.vars)
	return nil
}

// webhookFilter checks payload against n's filter, which sees the
// variables at the catch, the payload's fields over them and the whole
// payload as `payload`.
func (x *instance) webhookFilter(t *token, n *model.Node, payload map[string]any) error {
	if n.Webhook.Filter == "" {
		return nil
	}
	vars := maps.Clone(x.evalVars(t))
	if vars == nil {
		vars = map[string]any{}
	}
	maps.Copy(vars, payload)
	vars["payload"] = payload
	rejected := &WebhookRejectedError{ElementID: n.ID, Filter: n.Webhook.Filter}
	prog, err := compileExpr(n.Webhook.Filter)
	if err != nil {
		rejected.Reason = err.Error()
		return rejected
	}
	ok, err := x.e.eval.EvalBool(x.ctx, prog, vars)
	if err != nil {
		rejected.Reason = err.Error()
		return rejected
	}
	if !ok {
		return rejected
	}
	return nil
}
