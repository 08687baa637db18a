// The Kubernetes objects inside a trace: reading one into a Record's identity (kind, namespace,
// name, uid, resourceVersion), checking the kinds rjsim models against their typed form
// (engine/object_json.h, so a RayJob whose status.jobDeploymentStatus is a number is a bad
// record; any version of the kind's API group reads, so ray.io/v1alpha1 from a KubeRay 1.0
// cluster does, while a custom resource of another group that happens to share a kind name is
// not checked), and normalising volatile metadata so that states from different recorders compare
// equal: metadata.managedFields, metadata.selfLink and the kubectl last-applied-configuration
// annotation are removed (an annotations map left empty goes too). resourceVersion is kept as
// text; it need not be numeric (trace-formats.md §6).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "trace/record.h"

namespace rjsim::trace {

nlohmann::json normalise_object(nlohmann::json object);

// Fills record.kind, namespace_, name, uid, resource_version and object from `object`, which
// must have kind, metadata.name, metadata.uid and metadata.resourceVersion. False with `error`
// ("object.metadata.uid: missing") otherwise, or when a modelled kind does not read back.
// `where` prefixes the JSON paths in messages ("object", "responseObject"). The object is moved
// into record.object when it reads (a trace's objects are too many to copy); when it does not,
// it is left as it was but normalised.
bool read_object(nlohmann::json&& object, const std::string& where, Record& record, std::string& error);

// A metav1.WatchEvent {type, object} (kubectl --output-watch-events, the raw watch stream):
// ADDED, MODIFIED and DELETED carry an object; BOOKMARK only its resourceVersion; ERROR a Status
// (code, reason, message). False with `error` for anything else. An ADDED, MODIFIED or DELETED
// object is moved into record.object as read_object does.
bool read_watch_event(nlohmann::json&& event, Record& record, std::string& error);

// A note for a record that reads as another format would ("" when it does not): the common
// mistake of giving the wrong --format gets a message that says which one fits.
//   " (this is an audit Event: use --format audit)"
std::string other_format_hint(const nlohmann::json& value, Format format);

}  // namespace rjsim::trace
