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

package preview

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
)

// previewSecret is the value of the instance's Secret in the hostile previews: it needs JSON
// and Go escapes, and has upper-case letters names lower-case.
const previewSecret = `Pa&ss<W0rd>"42-xyz`

// hostileCandidates are the candidates a caller who may not read the instance's Secret writes
// to learn its value DB, each spelling it another way.
func hostileCandidates(t *testing.T) map[string]*templatesv1.Template {
	with := func(params []templatesv1.Parameter, objects ...string) *templatesv1.Template {
		return valueTemplate(t, "one", func(v *templatesv1.Template) {
			v.Parameters = append(v.Parameters, params...)
			for _, o := range objects {
				v.Objects = append(v.Objects, runtime.RawExtension{Raw: []byte(o)})
			}
		})
	}
	db := []templatesv1.Parameter{{Name: "DB"}}
	cm := func(name, data string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":` + data + `}`
	}
	forEach := func(list string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-${ITEM}","annotations":{"templates.stencil.dev/for-each":"` + list + `"}}}`
	}
	includeWhen := func(cond string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"probe","annotations":{"templates.stencil.dev/include-when":"` + cond + `"}}}`
	}
	return map[string]*templatesv1.Template{
		"in a field, escaped as JSON":    with(db, cm("copy", `{"v":"${DB}"}`)),
		"in a field, as its base64":      with([]templatesv1.Parameter{{Name: "DB", Type: "base64"}}, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"b"},"data":{"v":"${DB}"}}`),
		"split across two fields":        with(db, cm("split", `{"a":"${DB}"}`), forEach(`[params.DB.substring(0, 6).lowerAscii(), params.DB.substring(6).lowerAscii()]`)),
		"in an object's name (for-each)": with(db, forEach(`[params.DB.lowerAscii()]`)),
		"one object per character":       with(db, forEach(`params.DB.split('').map(c, c.lowerAscii())`)),
		"quoted by a refusal (pattern)":  with([]templatesv1.Parameter{{Name: "DB", Pattern: "^x$"}}),
		"quoted by a rule at the value": valueTemplate(t, "one", func(v *templatesv1.Template) {
			v.Parameters = append(v.Parameters, db...)
			v.Rules = []templatesv1.ParameterRule{{Rule: "params.DB == 'x'", FieldPath: "DB"}}
		}),
		"include-when, a right guess": with(db, includeWhen(`params.DB.startsWith('Pa')`)),
		"include-when, a wrong guess": with(db, includeWhen(`params.DB.startsWith('Xy')`)),
		"renders only the value":      with(db, cm("only", `{"v":"${DB}"}`)),
		"in the message":              valueTemplate(t, "one", func(v *templatesv1.Template) { v.Parameters = append(v.Parameters, db...); v.Message = "${DB}" }),
	}
}

// spellingsOf are the ways an answer could hold value: as it is, escaped as JSON and as Go
// quotes, in base64, lower-cased, and its halves.
func spellingsOf(value string) []string {
	j, _ := json.Marshal(value)
	q := strconv.Quote(value)
	lower := strings.ToLower(value)
	return []string{value, string(j[1 : len(j)-1]), q[1 : len(q)-1], base64.StdEncoding.EncodeToString([]byte(value)),
		base64.RawURLEncoding.EncodeToString([]byte(value)), lower, lower[:6], lower[6:]}
}

// TestPreviewAnswersNothingUnreadable (hostile, #37 finding 3, #32 finding 1): a caller who
// may not read what an instance reads learns nothing of it from any candidate: whatever
// spelling the candidate gives the value (escaped, in base64, split across fields, in names,
// in messages, through include-when's yes or no), the instance is Forbidden with the same
// answer, and no part of the answer holds the value. A caller who may read the Secret sees
// the previews, keyed hashes that no offline guess reproduces, and no secret value unmasked
// in the fields.
func TestPreviewAnswersNothingUnreadable(t *testing.T) {
	stored := valueTemplate(t, "one", func(v *templatesv1.Template) { v.Parameters = append(v.Parameters, templatesv1.Parameter{Name: "DB"}) })
	creds := valuesSecret("creds", map[string]string{"DB": previewSecret})
	run := func(t *testing.T, deny func(authorizer.Attributes) bool, candidate *templatesv1.Template) templates.InstancePreview {
		f := (&fixture{t: t, objects: []runtime.Object{stored, newInstance("shop", onRevision(1), fromSecret("creds"))},
			live: []runtime.Object{generatedValues("shop", "hunter2hunter2"), creds}, deny: deny}).build()
		status, err := f.previewer().Preview(context.Background(), Request{Template: internalTemplate(t, stored),
			Candidate: candidateOf(t, candidate), Caller: &user.DefaultInfo{Name: "bob"}})
		if err != nil {
			t.Fatal(err)
		}
		answer := strings.ToLower(fmt.Sprintf("%+v", status))
		if deny != nil {
			for _, s := range spellingsOf(previewSecret) {
				if strings.Contains(answer, strings.ToLower(s)) {
					t.Errorf("the answer holds %q:\n%s", s, answer)
				}
			}
		}
		return status.Instances[0]
	}
	var forbidden []string
	for name, candidate := range hostileCandidates(t) {
		t.Run("the caller may not read the Secret/"+name, func(t *testing.T) {
			one := run(t, refuse("bob", "get", "secrets"), candidate)
			if one.Classification != templates.PreviewForbidden || len(one.Objects) > 0 || len(one.Causes) > 0 || one.RenderedHash != "" {
				t.Errorf("a caller who may not read the inputs learns %+v", one)
			}
			forbidden = append(forbidden, fmt.Sprintf("%+v", one))
		})
	}
	for _, answer := range forbidden {
		if answer != forbidden[0] {
			t.Errorf("the Forbidden answers differ between candidates, an oracle:\n%s\n%s", forbidden[0], answer)
		}
	}
	t.Run("the caller may read it: the hash is keyed", func(t *testing.T) {
		one := run(t, nil, hostileCandidates(t)["renders only the value"])
		if one.Classification != templates.PreviewChanged || one.RenderedHash == "" {
			t.Fatalf("%+v", one)
		}
		// What a guesser would compute offline from the output it expects: never the hash.
		plain := sha256.Sum256([]byte(previewSecret))
		if strings.Contains(one.RenderedHash, hex.EncodeToString(plain[:])) || strings.HasPrefix(one.RenderedHash, "sha256:") {
			t.Errorf("the rendered hash is not keyed: %s", one.RenderedHash)
		}
		for _, o := range one.Objects {
			for _, f := range o.Fields {
				if strings.Contains(f.After, "W0rd") {
					t.Errorf("a secret value shows unmasked in %s %s: %+v", o.Name, f.Path, f)
				}
			}
		}
	})
}

// TestPreviewAuthorizerOutage (#32 finding 3): SubjectAccessReviews that fail make the
// preview a 503 with Retry-After, which clients retry, never an instance classified
// Forbidden; the next preview asks again.
func TestPreviewAuthorizerOutage(t *testing.T) {
	stored := valueTemplate(t, "one", nil)
	f := (&fixture{t: t, objects: []runtime.Object{stored, newInstance("shop", onRevision(1))},
		live: []runtime.Object{generatedValues("shop", "hunter2hunter2")}}).build()
	var failing atomic.Bool
	failing.Store(true)
	f.Authz.Deny = nil
	p := f.previewer()
	p.cfg.Authorizer = authorizer.AuthorizerFunc(func(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.GetVerb() == "get" && failing.Load() {
			return authorizer.DecisionNoOpinion, "", errors.New("SubjectAccessReview: connection refused")
		}
		return authorizer.DecisionAllow, "", nil
	})
	req := Request{Template: internalTemplate(t, stored), Candidate: candidateOf(t, valueTemplate(t, "two", nil)), Caller: &user.DefaultInfo{Name: "bob"}}
	_, err := p.Preview(context.Background(), req)
	status, ok := err.(apierrors.APIStatus)
	if !ok || status.Status().Code != http.StatusServiceUnavailable || status.Status().Details == nil || status.Status().Details.RetryAfterSeconds == 0 {
		t.Fatalf("a preview during an outage: %v", err)
	}
	failing.Store(false)
	answer, err := p.Preview(context.Background(), req)
	if err != nil || answer.Instances[0].Classification != templates.PreviewChanged {
		t.Fatalf("after the outage: %v %+v", err, answer)
	}
}

// TestPreviewPublishedTooLarge: a candidate whose artifact the controller would refuse as too
// large (a template repeating an object, an object holding megabytes) previews as Failed with
// the controller's reason, ArtifactTooLarge, not as a change that rolls out and then fails.
func TestPreviewPublishedTooLarge(t *testing.T) {
	stored := valueTemplate(t, "one", nil)
	candidate := valueTemplate(t, "two", func(t *templatesv1.Template) { t.Objects = t.Objects[:2] })
	published := func(ti *templatesv1.TemplateInstance) {
		ti.Spec.Delivery = &templatesv1.Delivery{Type: templatesv1.DeliveryExternalArtifact,
			ExternalArtifact: &templatesv1.ExternalArtifactDelivery{Secrets: templatesv1.SecretsApply}}
	}
	for _, tc := range []struct {
		name    string
		limits  artifact.Limits
		want    templates.PreviewClassification
		message string
	}{
		{"within the default limits", artifact.Limits{}, templates.PreviewWouldPrune, ""},
		{"more YAML than an artifact holds", artifact.Limits{MaxObjects: 10, MaxContentBytes: 64, MaxArchiveBytes: 1 << 20},
			templates.PreviewFailed, "ArtifactTooLarge: nothing was published"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := (&fixture{t: t, objects: []runtime.Object{stored, newInstance("shop", onRevision(1), published)},
				live: []runtime.Object{generatedValues("shop", "hunter2hunter2")}}).build()
			p := f.previewer()
			p.cfg.ArtifactLimits = tc.limits
			status, err := p.Preview(context.Background(), Request{Template: internalTemplate(t, stored),
				Candidate: candidateOf(t, candidate), Caller: &user.DefaultInfo{Name: "bob"}})
			if err != nil {
				t.Fatal(err)
			}
			one := status.Instances[0]
			if one.Classification != tc.want || !strings.Contains(one.Message, tc.message) {
				t.Errorf("classified %s (%q), want %s (%q)", one.Classification, one.Message, tc.want, tc.message)
			}
		})
	}
}
