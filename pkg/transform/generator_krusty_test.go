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

package transform_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// TestGeneratorsEqualKrusty runs the same generators through krusty (kubectl kustomize's
// library), with files on its in-memory disk, and through our generators, with the same
// content inline, and compares every object: names with their hash suffixes, data, labels,
// annotations, immutable, and the references fixed up in the Deployment.
func TestGeneratorsEqualKrusty(t *testing.T) {
	binary := string([]byte{0xff, 0xfe, 0x00, 0x01, 'x'})
	longSecret := strings.Repeat("s3cr3t-", 20) // more than 70 characters of base64
	files := map[string]string{
		"app.env":      "\xef\xbb\xbf# comment\n  LOG=debug\n\nEMPTY\nURL=http://x/?a=b&c=<d>\n",
		"more.env":     "REGION=eu\n",
		"config.json":  `{"a": 1, "b": "<tag>"}` + "\n",
		"logo.bin":     binary,
		"password.txt": longSecret,
	}
	for _, tc := range []struct {
		name          string
		objects       string
		kustomization string
		generators    []string
		transformers  []string
	}{{
		name: "literals, envs, files and binary data",
		kustomization: `configMapGenerator:
- name: cfg
  envs: [app.env, more.env]
  literals: [A=1, 'QUOTED="x y"', "SINGLE='z'", "EQ=a=b"]
  files: [config.json, logo=logo.bin]`,
		generators: []string{`{kind: ConfigMapGenerator, metadata: {name: cfg},
  envs: ["\ufeff# comment\n  LOG=debug\n\nEMPTY\nURL=http://x/?a=b&c=<d>\n", "REGION=eu\n"],
  literals: [A=1, 'QUOTED="x y"', "SINGLE='z'", "EQ=a=b"],
  files: [{key: config.json, content: "{\"a\": 1, \"b\": \"<tag>\"}\n"}, {key: logo, contentBase64: "` + base64.StdEncoding.EncodeToString([]byte(binary)) + `"}]}`},
	}, {
		name: "secrets: type, long values, options",
		kustomization: `secretGenerator:
- name: creds
  literals: [user=admin]
  files: [pw=password.txt]
  options: {labels: {app: web}, annotations: {note: x}, immutable: true}
- name: tls
  type: kubernetes.io/tls
  literals: [tls.crt=CERT, tls.key=KEY]`,
		generators: []string{
			`{kind: SecretGenerator, metadata: {name: creds}, literals: [user=admin], files: [{key: pw, content: "` + longSecret + `"}],
  options: {labels: {app: web}, annotations: {note: x}, immutable: true}}`,
			`{kind: SecretGenerator, name: tls, type: kubernetes.io/tls, literals: [tls.crt=CERT, tls.key=KEY]}`,
		},
	}, {
		name: "no hash, and a prefix before the hash",
		kustomization: `namePrefix: p-
configMapGenerator:
- name: cfg
  literals: [A=1]
- name: plain
  literals: [B=2]
  options: {disableNameSuffixHash: true}`,
		generators: []string{
			`{kind: ConfigMapGenerator, metadata: {name: cfg}, literals: [A=1]}`,
			`{kind: ConfigMapGenerator, metadata: {name: plain}, literals: [B=2], options: {disableNameSuffixHash: true}}`,
		},
		transformers: []string{"{kind: PrefixSuffixTransformer, prefix: p-}"},
	}, {
		name: "merge and replace into the template's objects",
		objects: `apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, labels: {keep: "yes", over: old}}
data: {A: "0", OLD: "1"}
---
apiVersion: v1
kind: Secret
metadata: {name: creds, annotations: {a: b}}
data: {old: eA==}`,
		kustomization: `configMapGenerator:
- name: cfg
  behavior: merge
  literals: [A=1, B=2]
  options: {labels: {over: new}}
secretGenerator:
- name: creds
  behavior: replace
  literals: [new=y]`,
		generators: []string{
			`{kind: ConfigMapGenerator, metadata: {name: cfg}, behavior: merge, literals: [A=1, B=2], options: {labels: {over: new}}}`,
			`{kind: SecretGenerator, metadata: {name: creds}, behavior: replace, literals: [new=y]}`,
		},
	}, {
		name: "merge into a generated ConfigMap keeps the hash, which covers a later patch",
		kustomization: `configMapGenerator:
- name: cfg
  literals: [A=1]
- name: cfg
  behavior: merge
  literals: [B=2]
patches:
- target: {kind: ConfigMap, name: cfg}
  patch: '[{"op": "add", "path": "/data/C", "value": "3"}]'`,
		generators: []string{
			`{kind: ConfigMapGenerator, metadata: {name: cfg}, literals: [A=1]}`,
			`{kind: ConfigMapGenerator, metadata: {name: cfg}, behavior: merge, literals: [B=2]}`,
		},
		transformers: []string{`{kind: PatchTransformer, target: {kind: ConfigMap, name: cfg}, patch: '[{"op": "add", "path": "/data/C", "value": "3"}]'}`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			objectsYAML := tc.objects
			if objectsYAML == "" {
				objectsYAML = generatorReferrers
			} else {
				objectsYAML += "\n---\n" + generatorReferrers
			}
			objects := transformtest.YAMLDocs(t, objectsYAML)
			raw, err := jsonbytes.EncodeObjects(objects)
			if err != nil {
				t.Fatal(err)
			}
			fSys := filesys.MakeFsInMemory()
			for name, content := range files {
				if err := fSys.WriteFile("/k/"+name, []byte(content)); err != nil {
					t.Fatal(err)
				}
			}
			kust := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [objects.yaml]\n" + tc.kustomization + "\n"
			if err := fSys.WriteFile("/k/kustomization.yaml", []byte(kust)); err != nil {
				t.Fatal(err)
			}
			var docs []string
			for _, r := range raw {
				docs = append(docs, string(r))
			}
			if err := fSys.WriteFile("/k/objects.yaml", []byte(strings.Join(docs, "\n---\n"))); err != nil {
				t.Fatal(err)
			}
			want := krustyObjects(t, fSys, "/k")

			var gens, trans []json.RawMessage
			for _, g := range tc.generators {
				gens = append(gens, transformtest.YAMLJSON(t, g))
			}
			for _, c := range tc.transformers {
				trans = append(trans, transformtest.YAMLJSON(t, c))
			}
			configs := transform.GeneratorConfigs(gens)
			for _, c := range trans {
				configs = append(configs, transform.Config{Raw: c})
			}
			p, errs := testKinds.Compile(plugin.Policy{}, configs)
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			out, _, err := transformtest.RunPipeline(p, raw)
			if err != nil {
				t.Fatal(err)
			}
			got, err := jsonbytes.DecodeObjects(out)
			if err != nil {
				t.Fatal(err)
			}
			transformtest.AssertObjects(t, got, want)
		})
	}
}

// generatorReferrers refer to the generated objects by their names as written.
const generatorReferrers = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: main
        image: nginx
        envFrom: [{configMapRef: {name: cfg}}, {configMapRef: {name: plain}}]
        env: [{name: PW, valueFrom: {secretKeyRef: {name: creds, key: pw}}}]
      volumes:
      - {name: conf, configMap: {name: cfg}}
      - {name: sec, secret: {secretName: creds}}
      - {name: tls, secret: {secretName: tls}}`
