"""The language server's JSON-RPC protocol: pygls's, answering every request.

JSON-RPC 2.0 answers every request (a message with an `id`), with a result or an error; a
client that gets neither waits forever. pygls 2 sends nothing in three cases, which this
protocol answers instead:

* params that do not fit the method (`textDocument/hover` with `"params": 5`): pygls fails to
  read the message before it knows it is a request, and only logs it. Answered with
  InvalidParams (-32602), or InternalError (-32603) when the message could not be read for
  another reason;
* a request after `shutdown` (other than `exit`, a notification): pygls drops it. The LSP
  specification asks for InvalidRequest (-32600);
* a request that is not JSON-RPC 2.0 (no `"jsonrpc": "2.0"`): InvalidRequest.

A body that is not JSON at all has no id to answer; `StagelintLanguageServer` answers it with
ParseError (-32700) and a null id, as JSON-RPC says.
"""

from __future__ import annotations

import json

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol


class _Unread:
    """A request pygls could not read, with the error to answer it with."""

    def __init__(self, msg_id, error: JsonRpcException):
        self.id, self.error = msg_id, error


def _request_id(data) -> int | str | None:
    """The id of a request (a JSON object with a method and an id), else None."""
    if not isinstance(data, dict) or "method" not in data:
        return None
    msg_id = data.get("id")
    return msg_id if isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool) else None


class AnsweringProtocol(LanguageServerProtocol):
    """`LanguageServerProtocol` that answers every request (see the module's docstring)."""

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            msg_id = _request_id(data)
            if msg_id is None:
                raise  # a notification or a response: nothing to answer
            return _Unread(msg_id, error)

    def handle_message(self, message):
        if isinstance(message, _Unread):
            self._refuse(message.id, message.error)
            return
        if isinstance(message, dict):  # not JSON-RPC: pygls left it as it was
            msg_id = _request_id(message)
            if msg_id is not None:
                self._refuse(msg_id, JsonRpcInvalidRequest("Invalid Request: not a JSON-RPC 2.0 message"))
            return
        is_request = getattr(message, "method", None) is not None and getattr(message, "id", None) is not None
        if is_request and message.jsonrpc != self.VERSION:
            self._refuse(message.id, JsonRpcInvalidRequest(f"Invalid Request: jsonrpc must be {self.VERSION!r}"))
            return
        if is_request and self._shutdown and message.method != lsp.EXIT:
            self._refuse(message.id, JsonRpcInvalidRequest(
                f"Invalid Request: {message.method} after shutdown (only exit is accepted)"))
            return
        super().handle_message(message)

    def _refuse(self, msg_id, error: JsonRpcException) -> None:
        self._send_response(msg_id, None, error.to_response_error())


class StagelintLanguageServer(LanguageServer):
    """pygls's `LanguageServer` over `AnsweringProtocol`; a body that is not JSON gets a
    ParseError answer (its id cannot be known: null)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, protocol_cls=AnsweringProtocol, **kwargs)

    def report_server_error(self, error, source):
        if isinstance(error, json.JSONDecodeError):
            # (a plain object: the protocol's converter would leave the null id out)
            self.protocol._send_data({"jsonrpc": "2.0", "id": None,
                                      "error": {"code": JsonRpcParseError.CODE, "message": f"Parse error: {error}"}})
            return
        super().report_server_error(error, source)
