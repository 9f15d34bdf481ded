/** JSON-RPC 2.0 §5.1: "Invalid method parameter(s)". */
export const INVALID_PARAMS = -32602;
/** JSON-RPC 2.0 §5.1: "Internal JSON-RPC error". */
export const INTERNAL_ERROR = -32603;
