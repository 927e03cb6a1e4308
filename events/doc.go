// Package events defines rmsidecar's versioned event schema (events v1), its
// strict decoder, and the JSONL log reader and writer.
//
// The schema is the public contract in shared/interfaces.md: every event is one
// JSON object with "v":1, a unique "id", a "type" and an epoch-millisecond "ts".
// Decoding is strict where a mistake would silently corrupt the cluster model
// (a missing required field, a wrong JSON type, an unknown type or an
// out-of-range value is an error that names the field) and lenient where the
// schema may grow (unknown extra fields are ignored), so producers can add
// optional fields without breaking older sidecars.
//
// DecodeMessage is Decode with a fast path for flat events,
// differential-tested against Decode. The Kafka transport lives in the
// sub-package events/kafka, so that importing the schema (as every policy
// does) never pulls in a Kafka client.
package events
