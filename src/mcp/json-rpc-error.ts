/** JSON-RPC 2.0 §5.1: "Invalid JSON was received by the server". */
export const PARSE_ERROR = -32700;
/** JSON-RPC 2.0 §5.1: "The JSON sent is not a valid Request object". */
export const INVALID_REQUEST = -32600;
/** JSON-RPC 2.0 §5.1: "Invalid method parameter(s)". */
export const INVALID_PARAMS = -32602;
/** JSON-RPC 2.0 §5.1: "Internal JSON-RPC error". */
export const INTERNAL_ERROR = -32603;
