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
// Kafka (kafka*.go): GroupConsumer runs a sarama consumer group and feeds
// decoded events to a Feed (the live loop) at least once, committing only
// offsets the feed has applied and checkpointed; messages that do not decode
// go to a dead-letter topic with their origin in headers. ProduceLog writes a
// JSONL log to a topic keyed by Event.Key. DecodeMessage is Decode with a
// fast path for flat events, differential-tested against Decode.
package events
