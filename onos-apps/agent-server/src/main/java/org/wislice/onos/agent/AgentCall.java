package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * One request method of the protocol (Table II, spec/agent/PROTOCOL.md) as the controllers know it: the check of
 * its params (what MessageValidator applies to a request of this method), how typed params P become the params
 * object and back, and how the reply's result becomes R. ApCalls and MecCalls list them (their ALL lists feed
 * the MessageValidator, and the vector test round-trips every request vector through its call);
 * AgentSession#call and AgentController#call send one.
 *
 * @param <P> what the caller gives (a VapSpec, a vap_id, nothing: Void)
 * @param <R> what the reply's result is read as (Void: the result is not looked at)
 */
public final class AgentCall<P, R> {

    private final String method;
    private final Params<P> params;
    private final Result<R> result;

    private AgentCall(String method, Params<P> params, Result<R> result) {
        this.method = method;
        this.params = params;
        this.result = result;
    }

    public static <P, R> AgentCall<P, R> of(String method, Params<P> params, Result<R> result) {
        return new AgentCall<>(method, params, result);
    }

    public String method() {
        return method;
    }

    /** Checks a request's params against this method's (MessageValidator). */
    public void checkParams(JsonNode params, String path) throws ProtocolException {
        this.params.check.check(params, path);
    }

    public ObjectNode params(P value) {
        return params.encode.apply(value);
    }

    /** Reads checked params (what an agent would do with a request of this method). */
    public P readParams(JsonNode json) {
        return params.read.apply(json);
    }

    /** The reply's result as R; InvalidReplyException (internal) naming what is wrong when it breaks the protocol. */
    public R result(JsonNode json) {
        try {
            return result.reader.read(json);
        } catch (ProtocolException e) {
            throw new InvalidReplyException(result.what, e.getMessage());
        }
    }

    /** This call with its params, ready to send. */
    public Request<R> with(P value) {
        return new Request<>(this, value);
    }

    /** A call and its params. */
    public static final class Request<R> {
        private final AgentCall<?, R> call;
        private final ObjectNode params;

        private <P> Request(AgentCall<P, R> call, P value) {
            this.call = call;
            this.params = call.params(value);
        }

        public String method() {
            return call.method;
        }

        public ObjectNode params() {
            return params;
        }

        public R result(JsonNode json) {
            return call.result(json);
        }
    }

    /** A method's params: their check, their encoding from P, and how checked params read as P. */
    public static final class Params<P> {
        private final JsonCheck check;
        private final Function<P, ObjectNode> encode;
        private final Function<JsonNode, P> read;

        private Params(JsonCheck check, Function<P, ObjectNode> encode, Function<JsonNode, P> read) {
            this.check = check;
            this.encode = encode;
            this.read = read;
        }

        public static <P> Params<P> of(JsonCheck check, Function<P, ObjectNode> encode, Function<JsonNode, P> read) {
            return new Params<>(check, encode, read);
        }

        /** {}: a method without params. */
        public static Params<Void> none() {
            return new Params<>((p, at) -> Fields.object(p, at, Set.of(), Set.of()), v -> Json.object(), p -> null);
        }

        /** {key: identifier} (delVap's {vap_id}). */
        public static Params<String> ident(String key) {
            return new Params<>((p, at) -> {
                Fields.object(p, at, Set.of(key), Set.of(key));
                Fields.string(p, key, at, Fields.IDENT);
            }, v -> Json.object().put(key, v), p -> p.get(key).asText());
        }

        /** The params object is the value (changeChannel's {radio, channel, cs_count?}). */
        public static <T> Params<T> value(AgentCodec<T> codec) {
            return new Params<>(codec::check, codec::encode, codec::read);
        }

        /** {key: value} (createVap's {vap: VapSpec}). */
        public static <T> Params<T> wrapped(String key, AgentCodec<T> codec) {
            return new Params<>((p, at) -> {
                Fields.object(p, at, Set.of(key), Set.of(key));
                codec.check(p.get(key), at + "." + key);
            }, v -> {
                ObjectNode o = Json.object();
                o.set(key, codec.encode(v));
                return o;
            }, p -> codec.read(p.get(key)));
        }

        /** {key: [value]} with at most maxItems (syncVaps's {vaps: [VapSpec]}). */
        public static <T> Params<List<T>> list(String key, int maxItems, AgentCodec<T> codec) {
            return new Params<>((p, at) -> {
                Fields.object(p, at, Set.of(key), Set.of(key));
                JsonNode list = Fields.array(p, key, at, maxItems);
                for (int i = 0; i < list.size(); i++) {
                    codec.check(list.get(i), at + "." + key + "[" + i + "]");
                }
            }, v -> {
                ObjectNode o = Json.object();
                o.set(key, codec.encodeAll(v));
                return o;
            }, p -> codec.readAll(p.get(key)));
        }
    }

    /** How a method's reply result is read. */
    public static final class Result<R> {
        private final String what;
        private final Reader<R> reader;

        private Result(String what, Reader<R> reader) {
            this.what = what;
            this.reader = reader;
        }

        /** Reads a result object; throws ProtocolException naming the field when it breaks the protocol. */
        @FunctionalInterface
        public interface Reader<R> {
            R read(JsonNode result) throws ProtocolException;
        }

        /** @param what the result's name in error messages ("agent sent an invalid {what}: ...") */
        public static <R> Result<R> of(String what, Reader<R> reader) {
            return new Result<>(what, reader);
        }

        /** A result that is not looked at ({} by the protocol). */
        public static Result<Void> none() {
            return new Result<>("reply", r -> null);
        }

        /** {key: value} (createVap's {vap: VapState}). */
        public static <T> Result<T> wrapped(String key, AgentCodec<T> codec) {
            return new Result<>(codec.name(), r -> codec.decode(r.get(key), key));
        }

        /** {key: [value]} (getVaps's {vaps: [VapState]}). */
        public static <T> Result<List<T>> list(String key, AgentCodec<T> codec) {
            return new Result<>(codec.name() + " list", r -> codec.decodeAll(r.get(key), key));
        }
    }
}
