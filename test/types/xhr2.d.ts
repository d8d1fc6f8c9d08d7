declare module 'xhr2' {
  /** The W3C XMLHttpRequest over node:http, for browser libraries run under Node (botframework-directlinejs). */
  const XMLHttpRequest: typeof globalThis.XMLHttpRequest;
  export default XMLHttpRequest;
}
