// Package statemachine reads state-machine workflows (the advanced-features
// design's §11: a document with type: state_machine, JSON or YAML) and
// converts them into a model.Definition the token engine runs like any
// other.
//
// # Format
//
//	workflow_id: order_lifecycle      # required (or id); the definition key
//	name: Order lifecycle             # optional
//	type: state_machine               # required: how deployment tells the format
//	initial_state: pending            # required: the state an instance starts in
//	variables: {total: 0}             # optional: default variables of every instance
//	states:                           # a map from name to state (in order), or a list with name
//	  pending:
//	    on_entry: [...]               # actions run when the state is entered
//	    actions: [...]                # then these
//	    on_exit: [...]                # run when it is left, on the way to the target
//	    transitions:                  # in order
//	      - {target: approved, condition: "total <= 1000"}
//	      - {target: shipped, event: {message: order.shipped, correlation_key: orderId}}
//	      - {target: closed, event: {signal: ticket.closed}}
//	      - {target: escalated, event: {timer: PT4H}}
//	      - {target: done}            # no condition: always (the last of the conditional ones)
//	  done: {terminal: true}          # ends the instance
//
// An action is a job type (an agent's name, served by a handler or an
// external worker), or {agent_name | type, input_mapping} (input_mapping
// becomes the job's parameters; values may hold ${...} templates), or
// {script: JavaScript} (run in the engine; an object it returns is merged
// into the variables). Conditions are the engine's expressions; a
// correlation_key is one too (orderId, customer.id), evaluated when the
// state starts waiting.
//
// Unknown fields are errors (they are usually typos). Every problem found is
// a model.Problems naming the state: an unknown target, no or an unknown
// initial_state, a state no transition reaches, a state that is neither
// terminal nor has transitions, a terminal one with transitions or
// on_exit, an event with other than one of message, signal and timer, a
// timer that is no ISO-8601 duration, an unconditional transition before
// other ones (they could never be taken), an action with neither or both
// a job type and a script.
//
// # Semantics and conversion
//
// A state becomes a sequence in the one process: a none task with the
// state's name (Attrs[StateAttr]; the token entering it is the machine
// entering the state), its on_entry actions "<state>__entry", its actions
// "<state>__action" (numbered _2, _3... when there are more), then:
//
//   - terminal: an end event "<state>__end";
//   - one unconditional transition: a flow straight on;
//   - conditional transitions: an exclusive gateway "<state>__choice" whose
//     flows carry the conditions in order: the first that holds is taken,
//     an unconditional one is its default. When none holds and the state
//     has no event transitions, the gateway's incident names the state;
//   - event transitions: when none of the conditions held (or there are
//     none), the token waits at an event-based gateway "<state>__events"
//     over intermediate catch events "<state>__message", "<state>__signal"
//     and "<state>__timer": the first event to come wins, the others are
//     withdrawn. One event transition waits at its catch event alone.
//
// on_exit actions run on the way out, along the transition chosen: each
// transition gets its own copy "<state>__exit__<target>", so only the
// chosen path runs them. The first flow of every transition carries
// Attrs[TransitionAttr], a description of it.
//
// # State history
//
// History derives where an instance is and has been from its history
// events alone (a token entering a state's node; a token taking a
// transition's first flow), so the states are as durable as the event log
// and nothing is stored twice; see engine.Engine.States.
package statemachine
