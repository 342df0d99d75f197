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

package artifact

import (
	"crypto/rand"
	"encoding/base64"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Where an artifact is found. Its path names it as Flux's storage names files
// ("<kind>/<namespace>/<name>/<file>"); its URL adds, between the name and the file, the
// instance's token: 32 random bytes that only readers of the instance's artifact can learn,
// so that knowing (or computing) a render's digest is not enough to fetch it.

// Kind is the path's first segment: what published the artifact.
const Kind = "templateinstance"

// tokenBytes is how many random bytes a token holds; tokenLength its length in base64url.
const (
	tokenBytes  = 32
	tokenLength = 43
)

// NewToken returns a token for an instance's artifacts, from crypto/rand.
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// ValidToken tells a token NewToken could have made.
func ValidToken(token string) bool {
	if len(token) != tokenLength {
		return false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(token)
	return err == nil && len(b) == tokenBytes
}

// Path is an artifact's path as its status reports it.
func Path(namespace, name, digest string) string {
	return Kind + "/" + namespace + "/" + name + "/" + fileName(digest)
}

// URLPath is the path of an artifact's URL, below the server's base URL.
func URLPath(namespace, name, token, digest string) string {
	return "/" + Kind + "/" + namespace + "/" + name + "/" + token + "/" + fileName(digest)
}

func fileName(digest string) string { return strings.TrimPrefix(digest, DigestPrefix) + ".tar.gz" }

// Location is what a URL path names.
type Location struct {
	Namespace, Name, Token string
	// Digest is "sha256:<hex>".
	Digest string
}

var fileRE = regexp.MustCompile(`^[0-9a-f]{64}\.tar\.gz$`)

// ParseURLPath reads a URL path that URLPath wrote; anything else (another shape, a namespace
// or name no object can have, a dot segment, an escape) is not an artifact's.
func ParseURLPath(p string) (Location, bool) {
	parts := strings.Split(p, "/")
	if len(parts) != 6 || parts[0] != "" || parts[1] != Kind {
		return Location{}, false
	}
	l := Location{Namespace: parts[2], Name: parts[3], Token: parts[4]}
	if len(validation.IsDNS1123Label(l.Namespace)) > 0 || len(validation.IsDNS1123Subdomain(l.Name)) > 0 ||
		!ValidToken(l.Token) || !fileRE.MatchString(parts[5]) {
		return Location{}, false
	}
	l.Digest = DigestPrefix + strings.TrimSuffix(parts[5], ".tar.gz")
	return l, true
}
