package input

import (
	"context"
	"encoding/json"

	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/x11"
)

// ActionsParams is input.actions' batch; each action is read by Check.
type ActionsParams struct {
	Actions []json.RawMessage `json:"actions"`
}

// ActionsResult is how many actions ran, and the one that failed, if one did.
type ActionsResult struct {
	Done   int      `json:"done"`
	Failed *Failure `json:"failed,omitempty"`
}

// Input is input.actions on the daemon's display; the keyboard map it read is kept between
// batches, with the keycodes lent to characters that have no key.
type Input struct {
	display *x11.Display
	kb      keyboard
}

// New drives input on display.
func New(display *x11.Display) *Input { return &Input{display: display} }

// Actions checks the whole batch, then runs it with the display held; a batch that waits
// longer for the display than its request lasts answers aborted having done nothing.
func (in *Input) Actions(ctx context.Context, p ActionsParams) (ActionsResult, error) {
	if p.Actions == nil {
		return ActionsResult{Failed: fail(0, rpc.Invalid, "actions is a list of actions")}, nil
	}
	actions, f := Check(p.Actions)
	if f != nil {
		return ActionsResult{Failed: f}, nil
	}
	var res ActionsResult
	err := in.display.Do(ctx, func(c *x11.Conn, gen int) error {
		r := &runner{ctx: ctx, c: c, kb: &in.kb, gen: gen}
		res.Done, res.Failed = r.run(actions)
		return nil
	})
	return res, x11.RPCError(err)
}
