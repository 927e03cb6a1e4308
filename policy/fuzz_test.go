package policy_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rmsidecar/rmsidecar/policy"
)

// FuzzHintJSON: hints v1 decoding (GET /v1/hints, the Kafka hints topic,
// POST /v1/hints) never panics; a hint it accepts validates, encodes, and
// its encoding is a fixed point (decode then encode gives the same bytes).
func FuzzHintJSON(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"id":"h1","ts":1763719205000,"policy":"samr","kind":"speculate","reason":"slow","expires_ts":1763719265000,"app":"application_1_0001","task":"task_1_0001_m_000003","attempt":"attempt_1_0001_m_000003_0","est_remaining_ms":90000,"est_backup_ms":20000}`,
		`{"v":1,"id":"h2","ts":5,"policy":"tmar","kind":"ratio","reason":"r","queue":"default","max_maps":10,"max_reduces":2}`,
		`{"v":1,"kind":"ratio","app":"a","max_maps":-3,"max_reduces":2}`,
		`{"v":1,"id":"h3","ts":5,"policy":"dhsa","kind":"node_capacity","reason":"r","node":"nm1:8041","vcores":4,"memory_mb":4096}`,
		`{"v":1,"id":"h4","ts":5,"policy":"erul","kind":"place","reason":"r","app":"a","task":"t","nodes":["n1","n2"],"strict":true}`,
		`{"v":1,"id":"h5","ts":5,"policy":"p","kind":"kill","reason":"r","app":"a","attempt":"x","container":"c"}`,
		`{"v":1,"id":"h6","ts":5,"policy":"p","kind":"node_class","reason":"r","node":"n","map_slow":true,"reduce_slow":false}`,
		`{"v":1,"id":"h7","ts":5,"policy":"p","kind":"reduce_binding","reason":"r","app":"a","partition":3,"reducers":["n1"]}`,
		`{"v":1,"id":"h8","ts":5,"policy":"p","kind":"priority","reason":"r","app":"a","priority":7,"vcores":2}`,
		`{"v":2,"kind":"kill"}`, `{"v":1,"kind":"telepathy"}`, `null`, `[]`, `{"v":1e400}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var h policy.Hint
		if err := json.Unmarshal(data, &h); err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("accepted hint does not validate: %v", err)
		}
		b, err := json.Marshal(h)
		if err != nil {
			t.Fatalf("accepted hint does not encode: %v", err)
		}
		var again policy.Hint
		if err := json.Unmarshal(b, &again); err != nil {
			t.Fatalf("re-decode %s: %v", b, err)
		}
		b2, err := json.Marshal(again)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("encoding is not stable:\n%s\n%s (%v)", b, b2, err)
		}
	})
}
