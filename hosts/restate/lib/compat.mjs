// Node 20 (Debian's) lacks Promise.withResolvers (Node 22), which @restatedev/restate-sdk
// 1.17 calls when it handles a request; this is the standard definition, installed only
// when it is missing.
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers() {
    let resolve, reject;
    const promise = new this((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}
