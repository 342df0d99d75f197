# Reads the local kubeconfig with Ruby's kubeclient (Debian's ruby-kubeclient) and lists
# templates through it, as its users do. Usage: kubeclient.rb KUBECONFIG NAMESPACE; prints
# "ok: ..." per step and fails at the first that does not work (on 3731d16: "self-signed
# certificate in certificate chain", because the kubeconfig's CA data held the server's own
# certificate before the CA).
require "kubeclient"

kubeconfig, namespace = ARGV
config = Kubeclient::Config.read(kubeconfig)
context = config.context
client = Kubeclient::Client.new(
  context.api_endpoint + "/apis/templates.stencil.dev",
  "v1alpha1",
  ssl_options: context.ssl_options,
  auth_options: context.auth_options
)
puts "ok: connected to #{context.api_endpoint}"
client.create_entity("Template", "templates",
  Kubeclient::Resource.new(
    apiVersion: "templates.stencil.dev/v1alpha1", kind: "Template",
    metadata: {name: "rb-template", namespace: namespace},
    objects: [{apiVersion: "v1", kind: "ConfigMap", metadata: {name: "rb"}}]
  ))
puts "ok: created a Template"
names = client.get_entities("Template", "templates", namespace: namespace).map { |t| t.metadata.name }
raise "rb-template not listed: #{names}" unless names.include?("rb-template")
puts "ok: listed Templates"
client.delete_entity("templates", "rb-template", namespace)
puts "ok: deleted the Template"
