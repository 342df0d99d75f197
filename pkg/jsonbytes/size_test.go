/*
Copyright The Stencil Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package jsonbytes

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEncodedSize checks the count against the encoder itself, escapes included.
func TestEncodedSize(t *testing.T) {
	shared := strings.Repeat("a", 1000)
	values := []any{
		nil, true, false, "", "plain", "é \"q\" \\ \u0001 \b\f\n\r\t <&> \u2028 😀", json.Number("99999999999999999999"),
		map[string]any{}, []any{}, map[string]any{"k\n": []any{1, int64(-7), 2.5, "x", nil, map[string]any{"a": "b"}}},
		map[string]any{"a": shared, "b": shared, "c": []any{shared, shared}},
		struct {
			A int `json:"a"`
		}{3},
	}
	for _, v := range values {
		encoded, err := AppendValue(nil, v)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		if got := EncodedSize(v, 0); got != len(encoded) {
			t.Errorf("EncodedSize(%s) = %d, want %d", encoded, got, len(encoded))
		}
	}
}

func TestEncodedSizeStopsPastLimit(t *testing.T) {
	big := make([]any, 1000)
	for i := range big {
		big[i] = strings.Repeat("x", 1000)
	}
	got := EncodedSize(big, 10_000)
	if got <= 10_000 {
		t.Fatalf("size %d is not past the limit", got)
	}
	if got >= EncodedSize(big, 0) {
		t.Fatalf("counting went on to the end (%d) past the limit", got)
	}
	// Invalid UTF-8 is counted as U+FFFD's escape, never less than the encoder could write.
	if got := EncodedSize("a\xffb", 0); got != len(`"a\ufffdb"`) {
		t.Fatalf("invalid UTF-8: %d", got)
	}
}
