//! What the generated document cannot say by itself: API.md's id patterns
//! and ranges (the wire types are lenient so that the rules, not serde,
//! report problems), and the answers every operation may give (errors,
//! limits, the `X-Server-Time` header). Applied to the document's JSON.

use serde_json::{Value, json};

/// API.md: a show id.
pub const SHOW_ID: &str = "^[a-z0-9][a-z0-9-]{0,63}$";
/// API.md: seat and area ids.
pub const PLACE_ID: &str = "^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$";
/// API.md: a hold id.
pub const HOLD_ID: &str = "^[A-Za-z0-9_-]{8,64}$";
/// seat-state's `MAX_SECONDS`: a week.
const MAX_SECONDS: i64 = 7 * 24 * 3600;

pub fn apply(document: &mut Value) {
    constrain_schemas(&mut document["components"]["schemas"]);
    if let Some(paths) = document["paths"].as_object_mut() {
        for (path, item) in paths.iter_mut() {
            let Some(operations) = item.as_object_mut() else { continue };
            for operation in operations.values_mut() {
                constrain_parameters(operation);
                complete_responses(path, operation);
            }
        }
    }
}

fn constrain_schemas(schemas: &mut Value) {
    let show = &mut schemas["ShowInput"];
    show["required"] = json!(["id", "name", "seats"]);
    let fields = &mut show["properties"];
    fields["id"] = json!({"type": "string", "pattern": SHOW_ID});
    fields["name"] = json!({"type": "string", "pattern": "\\S"});
    for (field, min, max) in [
        ("holdSeconds", 1, MAX_SECONDS),
        ("extensionSeconds", 1, MAX_SECONDS),
        ("maxExtensions", 0, 1000),
        ("maxSeatsPerHold", 1, 100_000),
        ("maxActiveHoldsPerHolder", 1, 1000),
    ] {
        fields[field]["minimum"] = json!(min);
        fields[field]["maximum"] = json!(max);
    }
    fields["latePolicy"] = json!({"type": ["string", "null"], "enum": ["reject", "honorIfFree", null]});
    fields["seats"]["type"] = json!("array");
    // Seats may be empty when areas are not.
    show["anyOf"] = json!([
        {"properties": {"seats": {"minItems": 1}}},
        {"required": ["areas"], "properties": {"areas": {"type": "array", "minItems": 1}}}
    ]);
    show["description"] = json!(
        "`POST /api/admin/shows` body. Seat and area ids are unique across the show's seats and areas \
         (a repeated id → 422 invalid_show)."
    );
    schemas["SeatDefinition"]["properties"]["id"]["pattern"] = json!(PLACE_ID);
    let area = &mut schemas["AreaDefinition"]["properties"];
    area["id"]["pattern"] = json!(PLACE_ID);
    area["capacity"]["minimum"] = json!(1);
    area["capacity"]["maximum"] = json!(u32::MAX);
    let hold = &mut schemas["HoldRequestBody"]["properties"];
    hold["holdId"]["pattern"] = json!(HOLD_ID);
    hold["seats"]["items"]["pattern"] = json!(PLACE_ID);
    hold["areas"]["additionalProperties"]["minimum"] = json!(1);
    hold["areas"]["propertyNames"]["pattern"] = json!(PLACE_ID);
    constrain_box_office(schemas);
    constrain_webhooks(schemas);
}

/// API.md "Box office (v3)", Webhooks (`webhooks/input.rs` checks the same:
/// a URL the pattern refuses, the server refuses too).
fn constrain_webhooks(schemas: &mut Value) {
    let webhook = &mut schemas["WebhookInput"];
    webhook["required"] = json!(["url", "secret", "events"]);
    let fields = &mut webhook["properties"];
    fields["url"] = json!({"type": "string", "pattern": crate::webhooks::input::URL_PATTERN, "maxLength": 2048});
    fields["secret"] = json!({"type": "string", "pattern": "\\S", "maxLength": 1024});
    let kinds = ["held", "extended", "confirmed", "released", "expired", "blocked", "unblocked"];
    fields["events"] = json!({"type": "array", "minItems": 1, "uniqueItems": true, "items": {"enum": kinds}});
    let redeliver = &mut schemas["RedeliverRequest"];
    redeliver["required"] = json!(["fromEventId"]);
    redeliver["properties"]["fromEventId"] =
        json!({"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,63}:[1-9][0-9]{0,17}$"});
}

/// API.md "Box office (v2)": categories, rows, channels (seat-state's
/// `seating` module checks the same).
fn constrain_box_office(schemas: &mut Value) {
    let category = &mut schemas["CategoryDefinition"]["properties"];
    category["id"]["pattern"] = json!(PLACE_ID);
    category["name"] = json!({"type": "string", "pattern": "\\S", "maxLength": 200});
    category["price"]["minimum"] = json!(0);
    category["price"]["maximum"] = json!(1_000_000_000_000_i64);
    category["currency"]["pattern"] = json!("^[A-Z]{3}$");
    category["color"]["pattern"] = json!("^#[0-9A-Fa-f]{6}$");
    let channel = &mut schemas["ChannelDefinition"];
    channel["properties"]["id"]["pattern"] = json!(PLACE_ID);
    channel["properties"]["code"] = json!({"type": "string", "pattern": "\\S", "maxLength": 128});
    channel["properties"]["seats"]["items"]["pattern"] = json!(PLACE_ID);
    channel["description"] = json!(
        "`code` is required on input and left out of `GET /api/shows/{showId}`; each seat is in one channel at most."
    );
    schemas["BestRequestBody"]["properties"]["count"]["minimum"] = json!(1);
    schemas["BestRequestBody"]["properties"]["category"]["pattern"] = json!(PLACE_ID);
    schemas["HoldOrder"]["description"] = json!(
        "`best` instead of `seats` and `areas` (both → 422 invalid_seats): the server picks `count` adjacent seats \
         in one row nearest the stage, leaving no single free seat beside them when another block avoids that \
         (under the show's `orphanRule: strict`, only such blocks). `access: true` may hold wheelchair places and \
         companion seats before the show's `accessReleaseAt`; so may `best` with `wheelchair`."
    );
    constrain_access(schemas);
    if let Some(parts) = schemas["VenueSeat"]["allOf"].as_array_mut() {
        for part in parts.iter_mut().filter(|part| part["properties"].is_object()) {
            let place = &mut part["properties"];
            place["section"] = json!({"type": ["string", "null"], "pattern": "\\S", "maxLength": 64});
            place["row"] = json!({"type": ["string", "null"], "pattern": "\\S", "maxLength": 64});
            place["number"]["minimum"] = json!(0);
            place["number"]["maximum"] = json!(1_000_000);
            part["description"] = json!("`section`, `row` and `number` come together or not at all.");
        }
    }
}

/// API.md "Box office (v3)": the orphan rule and accessible seating.
fn constrain_access(schemas: &mut Value) {
    schemas["ShowInput"]["properties"]["orphanRule"] =
        json!({"type": ["string", "null"], "enum": ["off", "lenient", "strict", null]});
    schemas["ShowDocument"]["properties"]["orphanRule"]["enum"] = json!(["off", "lenient", "strict"]);
    schemas["BestRequestBody"]["properties"]["wheelchair"]["minimum"] = json!(0);
    if let Some(parts) = schemas["VenueSeat"]["allOf"].as_array_mut() {
        for part in parts.iter_mut().filter(|part| part["properties"].is_object()) {
            let seat = &mut part["properties"];
            seat["access"] = json!({"type": ["string", "null"], "enum": ["wheelchair", "companion", null]});
            seat["companionOf"] = json!({"type": ["string", "null"], "pattern": PLACE_ID});
            part["description"] = json!(
                "`section`, `row` and `number` come together or not at all. `companionOf` (a wheelchair seat's id) \
                 goes with `access: companion` and only with it."
            );
        }
    }
}

/// Each event of `GET /api/shows/{showId}/events`, as the event object
/// (`event`, `id`, `data`) with the JSON in `data` described.
fn live_event_schema() -> Value {
    let event = |kind: &str, schema: &str| {
        json!({"type": "object", "required": ["event", "id", "data"], "properties": {
            "event": {"const": kind},
            "id": {"type": "string", "pattern": "^-?[0-9]+$"},
            "data": {"type": "string", "contentMediaType": "application/json",
                     "contentSchema": {"$ref": format!("#/components/schemas/{schema}")}}}})
    };
    // `anyOf`: a map with no seats listed fits both forms.
    json!({"anyOf": [
        event("snapshot", "SeatMap"),
        event("change", "ChangeEvent"),
        event("snapshot", "CompactMap"),
        event("change", "CompactChange"),
    ]})
}

fn constrain_parameters(operation: &mut Value) {
    // `get_mut`: indexing would add `"parameters": null` where there are none.
    let Some(parameters) = operation.get_mut("parameters").and_then(Value::as_array_mut) else { return };
    for parameter in parameters {
        parameter["schema"] = match parameter["name"].as_str() {
            Some("showId") => json!({"type": "string", "pattern": SHOW_ID}),
            Some("holdId") => json!({"type": "string", "pattern": HOLD_ID}),
            // Optional means absent, never `null`.
            Some("Last-Event-ID" | "lastEventId") => json!({"type": "integer", "format": "int64"}),
            _ => continue,
        };
    }
}

/// Adds the answers an operation can give whatever it does: the server's
/// own failure, a failing show (503), the body limits, and on every
/// answer the `X-Server-Time` header.
fn complete_responses(path: &str, operation: &mut Value) {
    let error = |description: &str| {
        json!({"description": description,
               "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}})
    };
    let has_body = operation.get("requestBody").is_some();
    if let Some(stream) = operation.pointer_mut("/responses/200/content/text~1event-stream") {
        stream["schema"] = live_event_schema();
    }
    // `?format=compact` and `?format=bits` answer other forms of the seat map.
    if path.ends_with("/seats")
        && let Some(map) = operation.pointer_mut("/responses/200/content/application~1json")
    {
        let form = |name: &str| json!({"$ref": format!("#/components/schemas/{name}")});
        map["schema"] = json!({"anyOf": [form("SeatMap"), form("CompactMap"), form("BitsMap")]});
    }
    let Some(responses) = operation["responses"].as_object_mut() else { return };
    let mut add = |status: &str, description: &str| {
        responses.entry(status).or_insert_with(|| error(description));
    };
    add("500", "internal: the server failed (logged)");
    if has_body {
        add("400", "bad_request: not JSON, or not the documented shape");
        add("408", "request_timeout: the body did not arrive in time");
        add("413", "payload_too_large");
    }
    if path.contains("{showId}") || path.starts_with("/api/holds") {
        add("503", "unavailable: the show's storage is failing (Retry-After)");
    }
    for response in responses.values_mut() {
        response["headers"]["X-Server-Time"] = json!({
            "description": "The server's clock (Unix epoch ms), the same as the body's `serverTime`",
            "required": true,
            "schema": {"type": "integer", "format": "int64"}
        });
    }
}
