package rpc

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// Bytes is data on the wire: standard base64, never null (an empty value is "").
type Bytes []byte

// MarshalText, not MarshalJSON: encoding/json re-scans a MarshalJSON result to compact it,
// which for a 512 KiB chunk cost more than the base64 itself; text is only quoted. A nil
// slice still goes out as "".
func (b Bytes) MarshalText() ([]byte, error) {
	return base64.StdEncoding.AppendEncode(nil, b), nil
}

func (b *Bytes) UnmarshalJSON(data []byte) error {
	// The decoder hands over a literal it has already checked: a string with no escape is its
	// own bytes between the quotes, decoded in place. Anything else takes the general way.
	if n := len(data); n >= 2 && data[0] == '"' && data[n-1] == '"' && bytes.IndexByte(data[1:n-1], '\\') < 0 {
		return b.decode(data[1 : n-1])
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("data must be a base64 string")
	}
	return b.decode([]byte(s))
}

func (b *Bytes) decode(text []byte) error {
	d := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, err := base64.StdEncoding.Decode(d, text)
	if err != nil {
		return fmt.Errorf("data is not base64: %v", err)
	}
	*b = d[:n]
	return nil
}
