/**
 * The context object Lambda's Node.js runtime passes a handler, built from the environment a local "container"
 * runs with (AWS_LAMBDA_FUNCTION_NAME, AWS_REGION, AWS_LAMBDA_FUNCTION_MEMORY_SIZE): what the bundled-handler tests'
 * runner (test/functions/bundled/lambda-runner.mjs) and the digest run bench (bench/digest-run-invoke.ts) hand the
 * functions. Plain TypeScript that Node runs without a build (types only), so the .mjs runner can import it.
 */
import { randomUUID } from 'node:crypto';

export function lambdaContext(timeoutSeconds: number, logStreamName: string) {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME;
  return {
    awsRequestId: randomUUID(),
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:123456789012:function:${functionName}`,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}
