package engine

import (
	"encoding/binary"
	"math/bits"
)

// idHash is the 64-bit hash a hint id is made of. Ids need to be
// deterministic and unique, not unforgeable: sha256 was a fifth of a
// 2,000-hint round's emit. This reads 8 bytes a step; each step
// (xor, rotate, multiply by an odd constant) is a bijection of the state
// for a given word, so two inputs of one length that differ in a single
// word never collide, and the length is mixed in first so that the
// zero-padded tails of inputs of different lengths do not meet. The
// finalizer is splitmix64's (Steele, Lea and Flood, OOPSLA'14), so every
// input bit moves about half the output bits, which the id's hex digits
// show.
func idHash(b []byte) uint64 {
	const k1, k2 = 0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f
	h := uint64(len(b)) * k1
	for ; len(b) >= 8; b = b[8:] {
		h = bits.RotateLeft64(h^binary.LittleEndian.Uint64(b)*k2, 31) * k1
	}
	var tail uint64
	for i := len(b) - 1; i >= 0; i-- {
		tail = tail<<8 | uint64(b[i])
	}
	h = bits.RotateLeft64(h^tail*k2, 31) * k1
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}
