package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Action is one input action as sent; which fields it may carry depends on its type.
type Action struct {
	Type   string      `json:"type"`
	Point  []float64   `json:"point"`
	Button string      `json:"button"`
	Count  *float64    `json:"count"`
	Keys   []string    `json:"keys"`
	Path   [][]float64 `json:"path"`
	Dx     *float64    `json:"dx"`
	Dy     *float64    `json:"dy"`
	Unit   string      `json:"unit"`
	Repeat *float64    `json:"repeat"`
	Ms     *float64    `json:"ms"`
	Text   *string     `json:"text"`
	From   []float64   `json:"from"`
	To     []float64   `json:"to"`
	Scale  *float64    `json:"scale"`
}

// shape is an action type's required and optional fields.
type shape struct{ required, optional []string }

var shapes = map[string]shape{
	"move":       {[]string{"point"}, nil},
	"down":       {nil, []string{"point", "button"}},
	"up":         {nil, []string{"point", "button"}},
	"click":      {nil, []string{"point", "button", "count", "keys"}},
	"drag":       {[]string{"path"}, []string{"button"}},
	"scroll":     {nil, []string{"point", "dx", "dy", "unit"}},
	"key":        {[]string{"keys"}, []string{"repeat"}},
	"hold":       {[]string{"keys", "ms"}, nil},
	"type":       {[]string{"text"}, nil},
	"wait":       {[]string{"ms"}, nil},
	"tap":        {[]string{"point"}, nil},
	"long_press": {[]string{"point"}, []string{"ms"}},
	"swipe":      {[]string{"from", "to"}, []string{"ms"}},
	"pinch":      {[]string{"point", "scale"}, nil},
	"button":     {[]string{"button"}, nil},
}

var actionTypes = func() string {
	names := make([]string, 0, len(shapes))
	for n := range shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}()

// decode reads one action strictly: a known type, its fields and no other, none null, every
// number of the kind its field takes. The error says which field, in the protocol's words.
func decode(raw json.RawMessage) (*Action, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("an action is an object with a type")
	}
	var typ string
	if err := json.Unmarshal(fields["type"], &typ); err != nil {
		return nil, fmt.Errorf("type: an action's type is one of %s", actionTypes)
	}
	sh, ok := shapes[typ]
	if !ok {
		return nil, fmt.Errorf("type: %q is not an action; an action's type is one of %s", trim(typ), actionTypes)
	}
	allowed := map[string]bool{"type": true}
	for _, f := range sh.required {
		allowed[f] = true
		if _, ok := fields[f]; !ok {
			return nil, fmt.Errorf("%s: a %s action needs it", f, typ)
		}
	}
	for _, f := range sh.optional {
		allowed[f] = true
	}
	for f, v := range fields {
		if !allowed[f] {
			return nil, fmt.Errorf("%s: a %s action has no such field", trim(f), typ)
		}
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return nil, fmt.Errorf("%s: is null", f)
		}
	}
	var a Action
	if err := json.Unmarshal(raw, &a); err != nil {
		var te *json.UnmarshalTypeError
		if ok := asType(err, &te); ok {
			return nil, fmt.Errorf("%s: is not a %s", te.Field, te.Type)
		}
		return nil, fmt.Errorf("not an action: %v", err)
	}
	return &a, a.validate()
}

func asType(err error, te **json.UnmarshalTypeError) bool {
	e, ok := err.(*json.UnmarshalTypeError)
	*te = e
	return ok
}

func trim(s string) string {
	if len(s) > 32 {
		return s[:32] + "..."
	}
	return s
}

func whole(f float64) bool { return f == math.Trunc(f) && !math.IsInf(f, 0) }

func point(name string, p []float64) error {
	if len(p) != 2 {
		return fmt.Errorf("%s: a point is [x, y]", name)
	}
	if !whole(p[0]) || !whole(p[1]) {
		return fmt.Errorf("%s: a point is whole pixels, not [%g, %g]", name, p[0], p[1])
	}
	return nil
}

func intField(name string, v *float64, min, max float64) error {
	if v == nil {
		return nil
	}
	if !whole(*v) {
		return fmt.Errorf("%s: is a whole number, not %g", name, *v)
	}
	if *v < min || *v > max {
		if max == math.MaxInt32 {
			return fmt.Errorf("%s: is %g or more", name, min)
		}
		return fmt.Errorf("%s: is %g to %g", name, min, max)
	}
	return nil
}

// validate checks each field's values as the protocol's schema does, and X11's whole points.
func (a *Action) validate() error {
	for name, p := range map[string][]float64{"point": a.Point, "from": a.From, "to": a.To} {
		if p != nil {
			if err := point(name, p); err != nil {
				return err
			}
		}
	}
	if a.Type == "drag" && len(a.Path) < 2 {
		return fmt.Errorf("path: a drag has 2 points or more")
	}
	for i, p := range a.Path {
		if err := point(fmt.Sprintf("path.%d", i), p); err != nil {
			return err
		}
	}
	switch a.Button {
	case "", "left", "middle", "right":
	case "back", "home", "app_switch":
		if a.Type != "button" {
			return fmt.Errorf("button: a mouse button is left, middle or right")
		}
	default:
		return fmt.Errorf("button: %q is not a button", trim(a.Button))
	}
	if a.Type == "button" && (a.Button != "back" && a.Button != "home" && a.Button != "app_switch") {
		return fmt.Errorf("button: a phone's button is back, home or app_switch")
	}
	if (a.Type == "key" || a.Type == "hold") && len(a.Keys) == 0 {
		return fmt.Errorf("keys: a %s action names a key at least", a.Type)
	}
	if a.Unit != "" && a.Unit != "click" && a.Unit != "px" {
		return fmt.Errorf("unit: a scroll's unit is click or px")
	}
	const big = math.MaxInt32
	for _, f := range []struct {
		name     string
		v        *float64
		min, max float64
	}{{"count", a.Count, 1, 3}, {"dx", a.Dx, -big, big}, {"dy", a.Dy, -big, big}, {"repeat", a.Repeat, 1, big}, {"ms", a.Ms, 0, big}} {
		if err := intField(f.name, f.v, f.min, f.max); err != nil {
			return err
		}
	}
	if a.Scale != nil && *a.Scale <= 0 {
		return fmt.Errorf("scale: is above 0")
	}
	return nil
}

func (a *Action) ms() int {
	if a.Ms == nil {
		return 0
	}
	return int(*a.Ms)
}

func num(v *float64, def int) int {
	if v == nil {
		return def
	}
	return int(*v)
}
