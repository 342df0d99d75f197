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

package process

import (
	"fmt"
	"strings"
)

// AmpSizedTemplate returns an OpenShift Template shaped like 3scale's amp.yml, the largest
// real template we know: 66 objects of mixed kinds (DeploymentConfigs, Services, Routes,
// ConfigMaps, Secrets, PVCs, ImageStreams), about 90 KB of JSON, 40 parameters referred to
// about 600 times. It is generated so that benchmarks need no file of a third party.
func AmpSizedTemplate() []byte {
	var b strings.Builder
	b.WriteString(`{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"amp","annotations":{"description":"A generated template of amp.yml's size and shape","iconClass":"icon-3scale","tags":"integration,api"}},"labels":{"app":"${APP_LABEL}","template":"amp"},"message":"Login on https://${TENANT_NAME}-admin.${WILDCARD_DOMAIN} as ${ADMIN_USERNAME}","parameters":[`)
	for i := 0; i < 40; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case i%5 == 0:
			fmt.Fprintf(&b, `{"name":"P%d","description":"Generated secret number %d","generate":"expression","from":"[a-z0-9]{16}","required":true}`, i, i)
		default:
			fmt.Fprintf(&b, `{"name":"P%d","displayName":"Parameter %d","description":"A value used in several objects of the template","value":"value-%d","required":true}`, i, i, i)
		}
	}
	b.WriteString(`,{"name":"APP_LABEL","value":"3scale-api-management"},{"name":"TENANT_NAME","value":"3scale"},{"name":"WILDCARD_DOMAIN","required":true,"value":"example.com"},{"name":"ADMIN_USERNAME","value":"admin"},{"name":"REPLICAS","value":"1"}],"objects":[`)
	kinds := []func(i int) string{ampDeploymentConfig, ampService, ampRoute, ampConfigMap, ampSecret, ampPVC, ampImageStream}
	for i := 0; i < 66; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(kinds[i%len(kinds)](i))
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

func ampDeploymentConfig(i int) string {
	env := make([]string, 0, 24)
	for k := 0; k < 24; k++ {
		switch k % 3 {
		case 0:
			env = append(env, fmt.Sprintf(`{"name":"ENV_%d","value":"${P%d}"}`, k, (i+k)%40))
		case 1:
			env = append(env, fmt.Sprintf(`{"name":"SECRET_%d","valueFrom":{"secretKeyRef":{"name":"system-seed-%d","key":"password"}}}`, k, i))
		default:
			env = append(env, fmt.Sprintf(`{"name":"URL_%d","value":"https://${TENANT_NAME}-%d.${WILDCARD_DOMAIN}/path/%d"}`, k, i, k))
		}
	}
	return fmt.Sprintf(`{"apiVersion":"apps.openshift.io/v1","kind":"DeploymentConfig","metadata":{"name":"system-app-%[1]d","labels":{"threescale_component":"system","threescale_component_element":"app-%[1]d"}},"spec":{"replicas":"${{REPLICAS}}","selector":{"deploymentConfig":"system-app-%[1]d"},"strategy":{"type":"Rolling","rollingParams":{"timeoutSeconds":1200,"pre":{"failurePolicy":"Retry","execNewPod":{"command":["bash","-c","bundle exec rake boot openshift:deploy"],"containerName":"system-master"}}}},"template":{"metadata":{"labels":{"deploymentConfig":"system-app-%[1]d","threescale_component":"system"}},"spec":{"serviceAccountName":"amp","containers":[{"name":"system-master","image":"amp-system:latest","args":["env","TENANT_MODE=master","PORT=3002","container-entrypoint","bundle","exec","unicorn","-c","config/unicorn.rb"],"env":[%[2]s],"ports":[{"containerPort":3002,"protocol":"TCP","name":"master"}],"resources":{"limits":{"cpu":"1000m","memory":"800Mi"},"requests":{"cpu":"50m","memory":"600Mi"}},"livenessProbe":{"timeoutSeconds":10,"initialDelaySeconds":20,"tcpSocket":{"port":"master"},"periodSeconds":10},"readinessProbe":{"httpGet":{"path":"/check.txt","port":"master","scheme":"HTTP","httpHeaders":[{"name":"X-Forwarded-Proto","value":"https"}]},"initialDelaySeconds":30,"timeoutSeconds":10,"periodSeconds":30},"volumeMounts":[{"name":"system-storage","mountPath":"/opt/system/public/system"}]}],"volumes":[{"name":"system-storage","persistentVolumeClaim":{"claimName":"system-storage"}}]}},"triggers":[{"type":"ConfigChange"},{"type":"ImageChange","imageChangeParams":{"automatic":true,"containerNames":["system-master"],"from":{"kind":"ImageStreamTag","name":"amp-system:latest"}}}]}}`, i, strings.Join(env, ","))
}

func ampService(i int) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"system-svc-%[1]d","labels":{"threescale_component":"system"}},"spec":{"ports":[{"name":"http","protocol":"TCP","port":3000,"targetPort":"http"},{"name":"metrics","port":9306,"targetPort":9306}],"selector":{"deploymentConfig":"system-app-%[1]d"}}}`, i)
}

func ampRoute(i int) string {
	return fmt.Sprintf(`{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"route-%[1]d","labels":{"threescale_component":"api"}},"spec":{"host":"${TENANT_NAME}-%[1]d.${WILDCARD_DOMAIN}","to":{"kind":"Service","name":"system-svc-%[1]d"},"port":{"targetPort":"http"},"tls":{"termination":"edge","insecureEdgeTerminationPolicy":"Allow"}}}`, i)
}

func ampConfigMap(i int) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"system-config-%[1]d","labels":{"threescale_component":"system"}},"data":{"zync.yml":"production:\n  endpoint: 'http://zync:8080'\n  authentication:\n    token: \"<%%= ENV.fetch('ZYNC_AUTHENTICATION_TOKEN') %%>\"\n  connect_timeout: 5\n  send_timeout: 5\n","rolling_updates.yml":"production:\n  old_charts: false\n  new_provider_documentation: false\n  proxy_pro: false\n","service_discovery.yml":"production:\n  enabled: <%%= cluster_token_file_exists = File.exists?(cluster_token_file_path = '/var/run/secrets/kubernetes.io/serviceaccount/token') %%>\n","url":"https://${TENANT_NAME}-admin.${WILDCARD_DOMAIN}/%[1]d"}}`, i)
}

func ampSecret(i int) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"system-seed-%[1]d","labels":{"threescale_component":"system"}},"type":"Opaque","stringData":{"MASTER_USER":"${P%[2]d}","MASTER_PASSWORD":"${P%[3]d}","ADMIN_ACCESS_TOKEN":"${P%[4]d}","TENANT_NAME":"${TENANT_NAME}"}}`, i, i%40, (i+5)%40, (i+10)%40)
}

func ampPVC(i int) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"storage-%[1]d","labels":{"threescale_component":"system"}},"spec":{"accessModes":["ReadWriteMany"],"resources":{"requests":{"storage":"100Mi"}}}}`, i)
}

func ampImageStream(i int) string {
	return fmt.Sprintf(`{"apiVersion":"image.openshift.io/v1","kind":"ImageStream","metadata":{"name":"amp-image-%[1]d","labels":{"threescale_component":"system"},"annotations":{"openshift.io/display-name":"AMP image %[1]d"}},"spec":{"tags":[{"name":"latest","annotations":{"openshift.io/display-name":"AMP (latest)"},"from":{"kind":"ImageStreamTag","name":"2.15"}},{"name":"2.15","annotations":{"openshift.io/display-name":"AMP 2.15"},"from":{"kind":"DockerImage","name":"registry.example.com/3scale/amp:2.15"},"importPolicy":{"insecure":false}}]}}`, i)
}
