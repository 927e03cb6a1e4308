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

// appendIDs appends the ids of the hints whose hash inputs lie back to
// back in in, the k-th from at[k] to at[k+1] (at ends with len(in)): the
// prefix, then 16 hex digits of the input's idHash.
func appendIDs(ids []byte, prefix string, in []byte, at []int32) []byte {
	for k := range len(at) - 1 {
		ids = append(ids, prefix...)
		ids = appendHex16(ids, idHash(in[at[k]:at[k+1]]))
	}
	return ids
}

// appendHex16 appends h as 16 lower-case hex digits, most significant
// first, as hex.AppendEncode does h's 8 big-endian bytes: the nibbles are
// spread one a byte, and each made its digit in one word ('0' + n, and
// 'a'-'0'-10 more where n > 9), instead of a table look-up per digit.
func appendHex16(b []byte, h uint64) []byte {
	b = binary.BigEndian.AppendUint64(b, hexDigits(uint32(h>>32)))
	return binary.BigEndian.AppendUint64(b, hexDigits(uint32(h)))
}

// hexDigits returns v's 8 hex digits, v's lowest nibble's in the lowest byte.
func hexDigits(v uint32) uint64 {
	const ones = 0x0101010101010101
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	over9 := (x + 6*ones) >> 4 & ones // 1 in each byte whose nibble is 10-15
	return x + '0'*ones + over9*('a'-'0'-10)
}
