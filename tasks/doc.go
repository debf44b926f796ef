// Package tasks holds the rules of human work: who may see a task, who may
// claim, release, delegate, complete or comment on it, and whether submitted
// values fit the task's form. The REST API and the pages both call it, so
// the same situation gets the same answer (status and code) through either.
//
// The rules:
//
//   - Visibility: admins and operators see every task; others see a task
//     assigned to them, or one that names them or one of their groups among
//     its candidates (claimed or not, so a candidate learns who holds it).
//     A task someone may not see is "not found", so its existence does not leak.
//   - Claim and complete need the worker role (admins have every role);
//     release, delegate and comment the worker or operator role.
//   - Claim: a candidate (or an admin/operator) takes an unassigned task.
//     The claim is a compare-and-set in the instance's applier: of two
//     racing claims exactly one wins, on any replica; the other gets 409
//     task_claimed naming who holds it.
//   - Release: the assignee, or an admin/operator, gives the task back to its
//     candidates.
//   - Delegate: the assignee, or an admin/operator, hands the task to a named user.
//   - Complete (the claim policy): completing requires the task to be assigned
//     to the acting user. Complete on an unassigned task the actor may claim
//     claims and completes it in one action (one guarded command, so nobody
//     can claim it in between). A task held by someone else is 409 task_claimed
//     for everyone, admins included: they delegate it to themselves first.
//   - Comment: anyone who may see an open task may comment on it; comments
//     stay on the task and in the instance's history.
//   - A paused instance accepts no claim, release, delegation or completion:
//     409 instance_paused, nothing changes.
//   - Submitted values are checked against the task's form-js schema before
//     anything changes: 400 invalid_form_values with one detail per field.
package tasks
