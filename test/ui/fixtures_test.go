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

package ui

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
)

// lab holds the templates of single tests: a namespace the catalog does not list, so that the
// catalog's own tests see the same cards; their pages are opened by address.
const lab = "lab"

// storeLabTemplates stores the templates of the masking, long-line and grouping tests.
func storeLabTemplates(cs clientset.Interface) error {
	ctx := context.Background()
	for _, tpl := range []*templatesv1.Template{credentialsTemplate(), longLinesTemplate()} {
		if _, err := cs.TemplatesV1alpha1().Templates(lab).Create(ctx, tpl, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("storing %s: %v", tpl.Name, err)
		}
	}
	// An OpenShift template of 33 parameters, as it is (no hints: the optional ones are folded)
	// and with its author's groups.
	openShift := []struct {
		name        string
		annotations map[string]string
	}{
		{"eap71-amq-s2i", nil},
		{"eap71-grouped", map[string]string{
			"openshift.io/display-name":              "JBoss EAP 7.1 + A-MQ (grouped)",
			"templates.stencil.dev/parameter-groups": eapGroups,
		}},
	}
	for _, o := range openShift {
		if err := storeOpenShift(cs, "testdata/eap71-amq-s2i.json", lab, o.name, o.annotations); err != nil {
			return err
		}
	}
	return nil
}

// eapGroups are the groups an author would give eap71-amq-s2i's parameters: by the prefixes
// of their names, and the build's by name.
const eapGroups = `Messaging (A-MQ): MQ_*, AMQ_*
HTTPS: HTTPS_*
Clustering: JGROUPS_*
Build: SOURCE_*, CONTEXT_DIR, MAVEN_*, ARTIFACT_DIR, *_WEBHOOK_SECRET`

// credentialsTemplate puts secret values everywhere a page can show them: a ConfigMap's data (in
// a URL), a Secret's stringData, an env value, a SecretGenerator's data (base64, and a value
// whose base64 is broken into lines across the password), the message.
// DB_PASSWORD is flagged secret and typed; API_TOKEN is flagged and generated; ADMIN_PASSWORD is
// not flagged but named like a credential, and its pattern makes the server quote a bad value.
func credentialsTemplate() *templatesv1.Template {
	return &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "app-credentials", Annotations: map[string]string{
			"templates.stencil.dev/display-name": "App with credentials",
		}},
		Message: "Connect with postgres://${APP}:${DB_PASSWORD}@db/${APP}; the API token is ${API_TOKEN}.",
		Parameters: []templatesv1.Parameter{
			{Name: "APP", DisplayName: "Application", Value: "shop", Required: true},
			{Name: "DB_PASSWORD", DisplayName: "Database password", Secret: true, Required: true},
			{Name: "API_TOKEN", DisplayName: "API token", Secret: true, Generate: "expression", From: "[a-z0-9]{24}"},
			{Name: "ADMIN_PASSWORD", DisplayName: "Admin password", Value: "admin-default-pw", Pattern: "^[a-z-]+$"},
		},
		Objects: []runtime.RawExtension{
			{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${APP}"},"data":{"url":"postgres://${APP}:${DB_PASSWORD}@db/${APP}","token":"${API_TOKEN}","admin":"${ADMIN_PASSWORD}"}}`)},
			{Raw: []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"${APP}"},"stringData":{"password":"${DB_PASSWORD}","token":"${API_TOKEN}"}}`)},
			{Raw: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${APP}"},"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app","env":[{"name":"DB_PASSWORD","value":"${DB_PASSWORD}"}]}]}}}}`)},
		},
		Generators: []runtime.RawExtension{
			{Raw: []byte(`{"kind":"SecretGenerator","metadata":{"name":"creds"},"literals":["password=${DB_PASSWORD}","token=${API_TOKEN}",` +
				`"dsn=host=db.example.com port=5432 user=${APP} password=${DB_PASSWORD} sslmode=verify-full application_name=catalog"]}`)},
		},
	}
}

// longLine is a value without a space, as a certificate or an image digest list is.
var longLine = strings.Repeat("0123456789abcdef", 24) + "-END"

// longLinesTemplate has lines far wider than the preview: an unbroken value, a long command
// line, and an unbroken message.
func longLinesTemplate() *templatesv1.Template {
	command := strings.Repeat("--flag-with-a-long-name=value ", 12) + "--last-flag=TAIL"
	return &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "long-lines", Annotations: map[string]string{
			"templates.stencil.dev/display-name": "Long lines",
		}},
		Message: "Fetch https://example.com/" + longLine,
		Objects: []runtime.RawExtension{
			{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"long"},"data":{"digest":"` + longLine + `","command":"` + command + `"}}`)},
		},
	}
}
