package rpc

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// Bytes is data on the wire: standard base64, never null (an empty value is "").
type Bytes []byte

func (b Bytes) MarshalJSON() ([]byte, error) {
	out := make([]byte, 0, base64.StdEncoding.EncodedLen(len(b))+2)
	out = append(out, '"')
	out = base64.StdEncoding.AppendEncode(out, b)
	return append(out, '"'), nil
}

func (b *Bytes) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("data must be a base64 string")
	}
	d, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("data is not base64: %v", err)
	}
	*b = d
	return nil
}
