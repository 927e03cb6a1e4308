package kafka

import (
	"github.com/rmsidecar/rmsidecar/events"

	"context"
	"errors"
	"strings"
	"testing"

	"github.com/IBM/sarama"
	"github.com/IBM/sarama/mocks"
)

func TestSaramaConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      Client
		wantErr string
		check   func(t *testing.T, c *sarama.Config)
	}{
		{name: "defaults: sticky, explicit commits", in: Client{Version: "3.9.0"}, check: func(t *testing.T, c *sarama.Config) {
			if c.Version != sarama.V3_9_0_0 {
				t.Errorf("version %v", c.Version)
			}
			if c.Consumer.Offsets.AutoCommit.Enable {
				t.Error("auto-commit on: offsets could be committed before the events are applied")
			}
			if got := c.Consumer.Group.Rebalance.GroupStrategies[0].Name(); got != sarama.StickyBalanceStrategyName {
				t.Errorf("assignor %s", got)
			}
		}},
		{name: "cooperative sticky", in: Client{Version: "4.0.0", Assignor: "cooperative-sticky"}, check: func(t *testing.T, c *sarama.Config) {
			if got := c.Consumer.Group.Rebalance.GroupStrategies[0].Name(); got != sarama.CooperativeStickyBalanceStrategyName {
				t.Errorf("assignor %s", got)
			}
		}},
		{name: "scram-sha-512", in: Client{Version: "3.9.0", SASL: SASL{Enabled: true, Mechanism: "SCRAM-SHA-512", User: "u", Password: "p"}},
			check: func(t *testing.T, c *sarama.Config) {
				if c.Net.SASL.Mechanism != sarama.SASLTypeSCRAMSHA512 || c.Net.SASL.SCRAMClientGeneratorFunc == nil {
					t.Errorf("SASL %v generator %v", c.Net.SASL.Mechanism, c.Net.SASL.SCRAMClientGeneratorFunc != nil)
				}
				sc := c.Net.SASL.SCRAMClientGeneratorFunc()
				if err := sc.Begin("u", "p", ""); err != nil {
					t.Fatal(err)
				}
				first, err := sc.Step("")
				if err != nil || !strings.HasPrefix(first, "n,,n=u,r=") {
					t.Errorf("first SCRAM message %q, %v", first, err)
				}
			}},
		{name: "too old", in: Client{Version: "2.0.0"}, wantErr: "older than 2.1.0"},
		{name: "not a version", in: Client{Version: "x"}, wantErr: "kafka.version"},
		{name: "unknown assignor", in: Client{Version: "3.9.0", Assignor: "random"}, wantErr: "kafka.assignor"},
		{name: "unknown mechanism", in: Client{Version: "3.9.0", SASL: SASL{Enabled: true, Mechanism: "GSSAPI", User: "u"}}, wantErr: "kafka.sasl.mechanism"},
		{name: "missing CA file", in: Client{Version: "3.9.0", TLS: TLS{Enabled: true, CAFile: "/nonexistent/ca.pem"}}, wantErr: "kafka.tls.ca_file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := SaramaConfig(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

func TestRejectReason(t *testing.T) {
	for in, want := range map[string]string{
		`not json`: "malformed",
		`{"v":1,"id":"x","type":"task.teleported","ts":1}`:                   "unknown_type",
		`{"v":2,"id":"x","type":"node.lost","ts":1,"node":"n","reason":"r"}`: "version",
		`{"v":1,"id":"x","type":"node.lost","ts":1}`:                         "invalid_field",
	} {
		_, err := events.Decode([]byte(in))
		if err == nil {
			t.Fatalf("%s decoded", in)
		}
		if got := RejectReason(err); got != want {
			t.Errorf("%s: reason %s (%v), want %s", in, got, err, want)
		}
	}
	if got := RejectReason(errors.New("other")); got != "invalid" {
		t.Errorf("plain error: %s", got)
	}
}

func TestDeadLetterKeepsOriginInHeaders(t *testing.T) {
	p := mocks.NewSyncProducer(t, nil)
	p.ExpectSendMessageWithMessageCheckerFunctionAndSucceed(func(m *sarama.ProducerMessage) error {
		want := map[string]string{HeaderTopic: "ev", HeaderPartition: "3", HeaderOffset: "42", HeaderError: "type: unknown"}
		for _, h := range m.Headers {
			if w, ok := want[string(h.Key)]; ok && w == string(h.Value) {
				delete(want, string(h.Key))
			}
		}
		if len(want) > 0 {
			return errors.New("missing or wrong headers: " + strings.Join(keys(want), ","))
		}
		if m.Topic != "dlq" {
			return errors.New("topic " + m.Topic)
		}
		v, _ := m.Value.Encode()
		if string(v) != "{bad}" {
			return errors.New("value changed: " + string(v))
		}
		return nil
	})
	d := NewDeadLetterProducer(p, "dlq")
	err := d.Send(context.Background(), &sarama.ConsumerMessage{Topic: "ev", Partition: 3, Offset: 42, Value: []byte("{bad}")},
		errors.New("type: unknown"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestProduceLogKeysAndRoutes(t *testing.T) {
	log := `{"v":1,"id":"1","type":"node.registered","ts":1,"node":"n1","rack":"r","vcores":1,"memory_mb":1}
{"v":1,"id":"2","type":"app.finished","ts":2,"app":"a1","state":"SUCCEEDED"}

not an event
`
	type sent struct{ topic, key string }
	var got []sent
	p := mocks.NewSyncProducer(t, nil)
	for range 3 {
		p.ExpectSendMessageWithMessageCheckerFunctionAndSucceed(func(m *sarama.ProducerMessage) error {
			k := ""
			if m.Key != nil {
				b, _ := m.Key.Encode()
				k = string(b)
			}
			got = append(got, sent{m.Topic, k})
			return nil
		})
	}
	st, err := ProduceLog(context.Background(), p, strings.NewReader(log), ProduceOptions{Topic: "ev", NodeTopic: "nodes"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Lines != 3 || st.Produced != 3 || st.Invalid != 1 {
		t.Errorf("stats %+v", st)
	}
	want := []sent{{"nodes", "n1"}, {"ev", "a1"}, {"ev", ""}}
	if len(got) != len(want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d: %v, want %v", i, got[i], want[i])
		}
	}
	_ = p.Close()
}

// TestTopicFor: node events go to the node topic when there is one.
func TestTopicFor(t *testing.T) {
	for _, c := range []struct {
		typ             events.Type
		nodeTopic, want string
	}{
		{events.NodeHeartbeat, "nodes", "nodes"},
		{events.NodeRegistered, "nodes", "nodes"},
		{events.NodeLost, "", "events"},
		{events.TaskProgress, "nodes", "events"},
		{"", "nodes", "events"},
	} {
		if got := TopicFor(c.typ, "events", c.nodeTopic); got != c.want {
			t.Errorf("TopicFor(%q, events, %q) = %q, want %q", c.typ, c.nodeTopic, got, c.want)
		}
	}
}
