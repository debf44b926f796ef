package live

import (
	"encoding/binary"
	"encoding/json"

	"github.com/workflowpp/wfpp/engine"
)

// The hub encodes each message once, as a complete server-to-client
// WebSocket frame (RFC 6455 §5.2: unmasked, no extensions), and shares it
// among every client it goes to; a client's writer sends what queued up
// in one write.
const (
	opText  = 0x1
	opClose = 0x8
	opPing  = 0x9
	opPong  = 0xA

	// Close codes (RFC 6455 §7.4.1).
	closeNormal      = 1000
	closeGoingAway   = 1001
	closePolicy      = 1008 // slow client: its send buffer filled
	closeInternal    = 1011
	closeTryAgainLtr = 1013 // the server could not keep up
)

func frame(op byte, payload []byte) []byte {
	b := make([]byte, 0, len(payload)+10)
	b = appendFrameHeader(b, op, len(payload))
	return append(b, payload...)
}

func appendFrameHeader(b []byte, op byte, n int) []byte {
	b = append(b, 0x80|op) // FIN
	switch {
	case n <= 125:
		return append(b, byte(n))
	case n <= 0xFFFF:
		return append(b, 126, byte(n>>8), byte(n))
	}
	b = append(b, 127)
	return binary.BigEndian.AppendUint64(b, uint64(n))
}

func closeFrame(code int, reason string) []byte {
	if len(reason) > 123 {
		reason = reason[:123]
	}
	p := binary.BigEndian.AppendUint16(nil, uint16(code))
	return frame(opClose, append(p, reason...))
}

// Messages from server to client.
type (
	eventMsg struct {
		Type  string        `json:"type"` // event
		Event *engine.Event `json:"event"`
	}
	taskMsg struct {
		Type   string       `json:"type"`   // task
		Change string       `json:"change"` // created, claimed, released, completed, cancelled
		Task   *engine.Task `json:"task"`
	}
	subscribedMsg struct {
		Type       string `json:"type"` // subscribed or unsubscribed
		Instance   string `json:"instance,omitempty"`
		Definition string `json:"definition,omitempty"`
		Inbox      bool   `json:"inbox,omitempty"`
		Circuits   bool   `json:"circuits,omitempty"`
	}
	errorMsg struct {
		Type    string `json:"type"` // error
		Message string `json:"message"`
	}
)

// wsRequest is a message from client to server.
type wsRequest struct {
	Type       string  `json:"type"` // subscribe or unsubscribe
	Instance   string  `json:"instance"`
	Definition string  `json:"definition"`
	Inbox      bool    `json:"inbox"`
	Circuits   bool    `json:"circuits"` // circuit breakers' events (circuits.go)
	Since      *uint64 `json:"since"`    // replay the instance's events with seq > since first
}

func textFrame(v any) []byte {
	p, err := json.Marshal(v)
	if err != nil { // only JSON values go in: events' details are JSON by contract
		p, _ = json.Marshal(errorMsg{Type: "error", Message: "encoding a message failed: " + err.Error()})
	}
	return frame(opText, p)
}

func eventFrame(ev *engine.Event) []byte { return textFrame(eventMsg{Type: "event", Event: ev}) }

func errorFrame(msg string) []byte { return textFrame(errorMsg{Type: "error", Message: msg}) }
