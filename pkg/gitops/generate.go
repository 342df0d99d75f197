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

package gitops

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	mrand "math/rand/v2"

	"stencil.dev/stencil/pkg/process"
)

// A GitOps tool renders the same commit again and again (every refresh, every sync): a value
// generated anew each time would make every render differ, and the application OutOfSync
// forever, rotating passwords on each sync. So a generated value here is derived, not drawn:
// an HMAC-SHA256 keyed with a secret seed that the administrator installs beside the tool (a
// Secret mounted into the sidecar, never in git), over what identifies the value: the
// application (its name and destination namespace), the render file's name, the parameter and
// its generator expression. The same inputs give the same value on every render; a different
// application, parameter or expression gives an unrelated one; without the seed nobody can
// compute it, though the repository and the expression are public. Without a seed, generation
// is refused with an error saying how to give a value or install a seed. The derivation never
// replaces crypto/rand anywhere else: stencil process and the server draw as before.

// MinSeedBytes is the least seed accepted: 256 bits.
const MinSeedBytes = 32

// derivationLabel separates this use of the seed from any other (SP 800-108's Label).
const derivationLabel = "stencil.dev/gitops generated value v1"

// Seed is the secret a render derives generated values from.
type Seed []byte

// CheckSeed refuses a seed too short to be a key.
func CheckSeed(s Seed) error {
	if len(s) < MinSeedBytes {
		return fmt.Errorf("the seed has %d bytes: it needs at least %d (head -c 32 /dev/urandom | base64)", len(s), MinSeedBytes)
	}
	return nil
}

// derivedValue returns the value of the generator expression from for the parameter named
// param of the render identified by context, drawn from the seed's keyed stream.
func derivedValue(seed Seed, context []string, param, from string) (string, error) {
	mac := hmac.New(sha256.New, seed)
	writeField(mac, derivationLabel)
	for _, c := range context {
		writeField(mac, c)
	}
	writeField(mac, param)
	writeField(mac, from)
	return process.GenerateValue(from, mrand.New(&keyedStream{mac: hmac.New(sha256.New, mac.Sum(nil))}))
}

// writeField writes s with its length first, so that no two lists of fields write the same
// bytes ("ab","c" and "a","bc" differ).
func writeField(h hash.Hash, s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}

// keyedStream is HMAC-SHA256 in counter mode (NIST SP 800-108): block i is HMAC(key, i). Only
// the holder of the key can predict it. math/rand/v2's Rand over it only maps its bits to
// uniform integers (IntN without bias), as process.CryptoGenerator does over crypto/rand.
type keyedStream struct {
	mac     hash.Hash
	counter uint64
	block   []byte
	used    int
}

// Uint64 returns the next 64 bits of the stream.
func (s *keyedStream) Uint64() uint64 {
	if s.block == nil || s.used+8 > len(s.block) {
		var c [8]byte
		binary.BigEndian.PutUint64(c[:], s.counter)
		s.counter++
		s.mac.Reset()
		s.mac.Write(c[:])
		s.block, s.used = s.mac.Sum(s.block[:0]), 0
	}
	v := binary.BigEndian.Uint64(s.block[s.used:])
	s.used += 8
	return v
}
